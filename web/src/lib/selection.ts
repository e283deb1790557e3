// Selection rules of the file list, as pure functions over ids in list order
// (the desktop file-manager conventions):
//  - click: select only that row; it becomes the anchor
//  - ctrl/cmd+click: toggle that row; it becomes the anchor
//  - shift+click: select the range anchor..row (replacing, or adding with ctrl)
//  - select all / clear
export interface SelectionState {
  selected: ReadonlySet<string>;
  anchor: string | null;
  /** the keyboard focus row */
  focus: string | null;
}

export interface Modifiers {
  shift?: boolean;
  toggle?: boolean; // ctrl on Windows/Linux, cmd on macOS
}

export const EMPTY: SelectionState = { selected: new Set(), anchor: null, focus: null };

export function click(state: SelectionState, ids: readonly string[], id: string, mods: Modifiers = {}): SelectionState {
  if (mods.shift && state.anchor !== null) {
    const a = ids.indexOf(state.anchor);
    const b = ids.indexOf(id);
    if (a >= 0 && b >= 0) {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      const range = ids.slice(lo, hi + 1);
      const selected = new Set(mods.toggle ? state.selected : []);
      for (const r of range) selected.add(r);
      return { selected, anchor: state.anchor, focus: id };
    }
  }
  if (mods.toggle) {
    const selected = new Set(state.selected);
    if (selected.has(id)) selected.delete(id);
    else selected.add(id);
    return { selected, anchor: id, focus: id };
  }
  return { selected: new Set([id]), anchor: id, focus: id };
}

export function selectAll(ids: readonly string[], state: SelectionState = EMPTY): SelectionState {
  return { selected: new Set(ids), anchor: state.anchor ?? ids[0] ?? null, focus: state.focus ?? ids[0] ?? null };
}

/** Moves the focus by `delta` rows (arrow keys; ±Infinity: Home, End); shift extends from the anchor. */
export function moveFocus(
  state: SelectionState,
  ids: readonly string[],
  delta: number,
  mods: Modifiers = {},
): SelectionState {
  if (ids.length === 0) return state;
  const cur = state.focus === null ? -1 : ids.indexOf(state.focus);
  // Without a focus row, a step enters at the near end (down: the first row,
  // up: the last); Home and End (-Infinity, Infinity) go to theirs.
  const whole = !Number.isFinite(delta);
  const next =
    cur < 0
      ? (delta > 0) !== whole
        ? 0
        : ids.length - 1
      : Math.min(ids.length - 1, Math.max(0, cur + delta));
  const id = ids[next];
  if (mods.shift) return click(state.anchor === null ? { ...state, anchor: id } : state, ids, id, { shift: true });
  if (mods.toggle) return { ...state, focus: id };
  return click(state, ids, id);
}

/**
 * Puts the keyboard focus (and the anchor) on a row without selecting
 * anything: a new folder is highlighted while the toolbar keeps offering
 * "New folder" and "Upload".
 */
export function focusOnly(id: string): SelectionState {
  return { selected: new Set(), anchor: id, focus: id };
}

/** Drops ids that are no longer listed (after delete, move, reload). */
export function retain(state: SelectionState, ids: readonly string[]): SelectionState {
  const present = new Set(ids);
  const selected = new Set([...state.selected].filter((s) => present.has(s)));
  return {
    selected,
    anchor: state.anchor && present.has(state.anchor) ? state.anchor : null,
    focus: state.focus && present.has(state.focus) ? state.focus : null,
  };
}
