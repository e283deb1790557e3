// How folders are shown: a list (rows with columns) or a grid of tiles with
// thumbnails. One choice for every folder (the Files page and public link
// folders), remembered in localStorage.
export type Layout = 'list' | 'grid';
const KEY = 'nubo.layout';

export interface LayoutStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

function browserStore(): LayoutStore | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage blocked
  }
}

export class LayoutChoice {
  value = $state<Layout>('list');

  constructor(private readonly store: LayoutStore | null = browserStore()) {
    try {
      if (store?.getItem(KEY) === 'grid') this.value = 'grid';
    } catch {
      // unreadable: the list
    }
  }

  set(value: Layout) {
    this.value = value;
    try {
      this.store?.setItem(KEY, value);
    } catch {
      // storage blocked or full: applies to this page only
    }
  }
}

export const layout = new LayoutChoice();
