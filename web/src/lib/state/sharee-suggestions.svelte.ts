// Users to suggest while a name is typed (GET /sharees: the server's
// sharing.sharee_search decides whom one may find), for the share dialog and
// the drive settings. Asked a moment after the last keystroke; an answer to
// an older prefix is dropped. Suggestions are a help only: a failure leaves
// none.
import type { Sharee } from '../api/schema.gen';

export class ShareeSuggestions {
  /** users whose names start with the last prefix asked for */
  list = $state.raw<Sharee[]>([]);
  private timer: ReturnType<typeof setTimeout> | undefined;
  private seq = 0;

  constructor(private readonly ask: (q: string) => Promise<Sharee[]>) {}

  suggest(q: string, delayMs = 150) {
    clearTimeout(this.timer);
    const seq = ++this.seq;
    const prefix = q.trim();
    if (!prefix) {
      this.list = [];
      return;
    }
    this.timer = setTimeout(() => {
      this.ask(prefix).then(
        (found) => seq === this.seq && (this.list = found.filter((s) => s.type === 'user')),
        () => seq === this.seq && (this.list = []),
      );
    }, delayMs);
  }
}
