// The "In file contents" part of the search page: full-text matches for the
// words typed, a page at a time (next_cursor). A newer search wins over an
// older one still under way; "more" continues the current one.
import type { ContentHit, ContentSearchPage } from '../services/files';

export type ContentLoader = (q: string, cursor: string | null, signal: AbortSignal) => Promise<ContentSearchPage>;

export class ContentSearch {
  /** the words searched for; '' when there is no content search */
  q = $state('');
  hits = $state.raw<ContentHit[]>([]);
  cursor = $state<string | null>(null);
  loading = $state(false);
  /** whether an answer for `q` arrived (an empty one says "no file contains …") */
  searched = $state(false);
  private generation = 0;
  private inflight: AbortController | null = null;

  constructor(
    private readonly load: ContentLoader,
    private readonly onerror: (e: unknown) => void = () => {},
  ) {}

  /** Searches for `q` (trimmed); an empty query clears the results. */
  async run(q: string) {
    this.inflight?.abort();
    const gen = ++this.generation;
    this.q = q.trim();
    this.hits = [];
    this.cursor = null;
    this.searched = false;
    this.loading = false;
    if (!this.q) return;
    await this.fetch(gen, null);
  }

  /** The next page of the current search. */
  async more() {
    if (!this.q || !this.cursor || this.loading) return;
    await this.fetch(this.generation, this.cursor);
  }

  private async fetch(gen: number, cursor: string | null) {
    const ctrl = new AbortController();
    this.inflight = ctrl;
    this.loading = true;
    try {
      const page = await this.load(this.q, cursor, ctrl.signal);
      if (gen !== this.generation) return;
      // A file may move up between pages (re-indexed): list it once.
      const seen = new Set(this.hits.map((h) => h.node.id));
      this.hits = [...this.hits, ...page.items.filter((h) => !seen.has(h.node.id))];
      this.cursor = page.next_cursor;
      this.searched = true;
    } catch (e) {
      if (gen !== this.generation || ctrl.signal.aborted) return;
      this.onerror(e);
    } finally {
      if (gen === this.generation) this.loading = false;
    }
  }
}
