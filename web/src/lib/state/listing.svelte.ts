// A folder's children, loaded a keyset page at a time as the list scrolls.
// The loader is injected (services/files.listChildren in the app).
import type { Children, Node } from '../api/schema.gen';
import type { SortKey, SortOrder } from '../services/files';

export type PageLoader = (
  folderId: string,
  sort: SortKey,
  order: SortOrder,
  cursor: string | null,
  signal: AbortSignal,
) => Promise<Children>;

export class FolderListing {
  folderId = $state<string | null>(null);
  folder = $state<Node | null>(null);
  items = $state.raw<Node[]>([]);
  sort = $state<SortKey>('name');
  order = $state<SortOrder>('asc');
  loading = $state(false);
  error = $state<unknown>(null);
  /**
   * How many children the folder has in all, when the server says so
   * (the folder's item_count), kept current by local removals; null when
   * unknown (an older server): then only the loaded count is known until the
   * last page arrives.
   */
  total = $state<number | null>(null);
  private cursor: string | null = null;
  private done = false;
  private firstPage = true;
  private generation = 0;
  private inflight: AbortController | null = null;

  constructor(private readonly load: PageLoader) {}

  get hasMore(): boolean {
    return !this.done;
  }

  /** Opens a folder (or re-sorts it): drops what was loaded and fetches page one. */
  async open(
    folderId: string,
    sort: SortKey = this.sort,
    order: SortOrder = this.order,
    keep = false,
  ): Promise<void> {
    this.inflight?.abort();
    this.generation++;
    this.folderId = folderId;
    this.sort = sort;
    this.order = order;
    // A reload keeps the rows on screen until page one replaces them (no
    // flicker, and an inline rename in progress keeps its input).
    this.firstPage = true;
    if (!keep) {
      this.items = [];
      this.total = null;
    }
    this.cursor = null;
    this.done = false;
    this.error = null;
    this.loading = false; // a superseded request no longer counts
    await this.more();
  }

  reload(): Promise<void> {
    return this.folderId ? this.open(this.folderId, this.sort, this.order, true) : Promise.resolve();
  }

  /** Fetches the next page unless one is on its way or the end was reached. */
  async more(): Promise<void> {
    if (this.done || this.loading || !this.folderId) return;
    const gen = this.generation;
    const ctl = new AbortController();
    this.inflight = ctl;
    this.loading = true;
    try {
      const page = await this.load(this.folderId, this.sort, this.order, this.cursor, ctl.signal);
      if (gen !== this.generation) return;
      this.folder = page.folder;
      const count = page.folder.item_count;
      this.total = typeof count === 'number' ? count : null;
      this.items = this.firstPage ? page.items : this.items.concat(page.items);
      this.firstPage = false;
      this.cursor = page.next_cursor;
      this.done = !page.next_cursor;
    } catch (e) {
      if (gen === this.generation && !(e instanceof DOMException && e.name === 'AbortError')) {
        this.error = e;
        this.done = true;
      }
    } finally {
      if (gen === this.generation) {
        this.loading = false;
        this.inflight = null;
      }
    }
  }

  /** Local updates after an action, without refetching every page. */
  replace(node: Node) {
    this.items = this.items.map((n) => (n.id === node.id ? node : n));
  }
  remove(ids: Iterable<string>) {
    const gone = new Set(ids);
    const before = this.items.length;
    this.items = this.items.filter((n) => !gone.has(n.id));
    if (this.total !== null) this.total = Math.max(this.items.length, this.total - (before - this.items.length));
  }

  /** The number of children for the header: exact when known, else what is loaded. */
  get count(): { count: number; exact: boolean } {
    if (this.total !== null) return { count: Math.max(this.total, this.items.length), exact: true };
    return { count: this.items.length, exact: !this.hasMore };
  }
}
