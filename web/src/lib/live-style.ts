// An action that sets style properties through the CSSOM
// (element.style.setProperty), for the few values only known at run time:
// the virtual list's height and offset, a menu's position, the zoom of an
// image. A strict Content-Security-Policy (`style-src 'self'`, no
// 'unsafe-inline') refuses style="" attributes in markup and <style> elements
// added at run time, but not CSSOM writes. Everything else is in stylesheets.
export type StyleProps = Record<string, string | null | undefined>;

export function liveStyle(node: HTMLElement, props: StyleProps) {
  let current: StyleProps = {};
  function apply(next: StyleProps) {
    for (const key of Object.keys(current)) {
      if (next[key] == null) node.style.removeProperty(key);
    }
    for (const [key, value] of Object.entries(next)) {
      if (value != null && current[key] !== value) node.style.setProperty(key, value);
    }
    current = { ...next };
  }
  apply(props);
  return { update: apply };
}
