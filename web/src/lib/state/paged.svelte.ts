// A list loaded page by page with an opaque cursor (the music library's
// artists, albums and tracks): what is loaded, whether more is, and one
// request at a time.
export interface CursorPage<T> {
  items: T[];
  next_cursor: string | null;
}

export class Paged<T> {
  items = $state.raw<T[]>([]);
  loading = $state(false);
  done = $state(false);
  /** the first page has answered (or failed) */
  loaded = $state(false);
  private cursor: string | null = null;
  private generation = 0;

  constructor(
    private readonly fetchPage: (cursor: string | null) => Promise<CursorPage<T>>,
    private readonly onerror: (e: unknown) => void = () => {},
  ) {}

  /** Loads the next page (nothing while one is loading or after the last). */
  async more(): Promise<void> {
    if (this.loading || this.done) return;
    const gen = this.generation;
    this.loading = true;
    try {
      const page = await this.fetchPage(this.cursor);
      if (gen !== this.generation) return;
      this.items = [...this.items, ...page.items];
      this.cursor = page.next_cursor;
      this.done = !page.next_cursor;
    } catch (e) {
      if (gen !== this.generation) return;
      this.done = true;
      this.onerror(e);
    } finally {
      if (gen === this.generation) {
        this.loading = false;
        this.loaded = true;
      }
    }
  }

  /** Starts again from the first page. */
  reset(): Promise<void> {
    this.generation++;
    this.items = [];
    this.cursor = null;
    this.done = false;
    this.loading = false;
    this.loaded = false;
    return this.more();
  }
}
