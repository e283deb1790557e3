import { describe, it, expect } from 'vitest';
import { LayoutChoice, type LayoutStore } from './layout.svelte';

function memory(initial: Record<string, string> = {}): LayoutStore & { data: Record<string, string> } {
  const data = { ...initial };
  return { data, getItem: (k) => data[k] ?? null, setItem: (k, v) => void (data[k] = v) };
}

describe('LayoutChoice', () => {
  it('starts as a list and remembers the choice', () => {
    const store = memory();
    const choice = new LayoutChoice(store);
    expect(choice.value).toBe('list');
    choice.set('grid');
    expect(choice.value).toBe('grid');
    expect(new LayoutChoice(store).value).toBe('grid'); // the next page load
    choice.set('list');
    expect(new LayoutChoice(store).value).toBe('list');
  });

  it('ignores what it does not know, and works without storage', () => {
    expect(new LayoutChoice(memory({ 'nubo.layout': 'mosaic' })).value).toBe('list');
    const broken: LayoutStore = {
      getItem: () => {
        throw new Error('blocked');
      },
      setItem: () => {
        throw new Error('blocked');
      },
    };
    const choice = new LayoutChoice(broken);
    expect(choice.value).toBe('list');
    choice.set('grid');
    expect(choice.value).toBe('grid');
    const none = new LayoutChoice(null);
    none.set('grid');
    expect(none.value).toBe('grid');
  });
});
