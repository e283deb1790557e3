// Reactive wrapper of lib/selection.ts for one list.
import * as sel from '../selection';

export class Selection {
  state = $state.raw<sel.SelectionState>(sel.EMPTY);
  count = $derived(this.state.selected.size);

  has(id: string): boolean {
    return this.state.selected.has(id);
  }
  ids(): string[] {
    return [...this.state.selected];
  }
  click(ids: readonly string[], id: string, mods: sel.Modifiers = {}) {
    this.state = sel.click(this.state, ids, id, mods);
  }
  /** Right-click: keeps a selection that includes the row, else selects it. */
  context(ids: readonly string[], id: string) {
    if (!this.state.selected.has(id)) this.state = sel.click(this.state, ids, id);
  }
  all(ids: readonly string[]) {
    this.state = sel.selectAll(ids, this.state);
  }
  move(ids: readonly string[], delta: number, mods: sel.Modifiers = {}) {
    this.state = sel.moveFocus(this.state, ids, delta, mods);
  }
  /** Highlights a row (keyboard focus) and selects nothing. */
  focusOn(id: string) {
    this.state = sel.focusOnly(id);
  }
  retain(ids: readonly string[]) {
    this.state = sel.retain(this.state, ids);
  }
  clear() {
    this.state = sel.EMPTY;
  }
}
