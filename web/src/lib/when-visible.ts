// An action that calls back once, the first time the element scrolls into
// view (rows of long lists load what they show lazily). Without
// IntersectionObserver it calls back at once.
let observer: IntersectionObserver | null = null;
const callbacks = new WeakMap<Element, () => void>();

function shared(): IntersectionObserver {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        observer!.unobserve(e.target);
        const cb = callbacks.get(e.target);
        callbacks.delete(e.target);
        cb?.();
      }
    },
    { rootMargin: '200px 0px' },
  );
  return observer;
}

export function whenVisible(node: Element, callback: () => void) {
  if (typeof IntersectionObserver === 'undefined') {
    callback();
    return {};
  }
  callbacks.set(node, callback);
  shared().observe(node);
  return {
    update(next: () => void) {
      if (callbacks.has(node)) callbacks.set(node, next);
    },
    destroy() {
      callbacks.delete(node);
      observer?.unobserve(node);
    },
  };
}
