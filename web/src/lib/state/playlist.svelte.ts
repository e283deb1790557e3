// One playlist being edited: its name and tracks, and every change (add,
// move, remove, rename) saved to the server. An order is saved whole (PUT
// …/items), one save at a time, in the order they were made; the server's
// answer becomes the list unless a newer change is waiting; a failed save
// reloads what the server has.
import type { Playlist, PlaylistInfo, Track } from '../services/music';
import { moveItem } from '../queue';

export interface PlaylistOps {
  get(id: string): Promise<Playlist>;
  setItems(id: string, items: string[]): Promise<Playlist>;
  rename(id: string, name: string): Promise<PlaylistInfo>;
  remove(id: string): Promise<void>;
}

export class PlaylistModel {
  name = $state('');
  tracks = $state.raw<Track[]>([]);
  status = $state<'loading' | 'ready' | 'missing'>('loading');
  private saving: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    private readonly ops: PlaylistOps,
    private readonly onerror: (e: unknown) => void = () => {},
  ) {}

  async load(): Promise<void> {
    try {
      this.show(await this.ops.get(this.id));
      this.status = 'ready';
    } catch (e) {
      this.status = 'missing';
      this.onerror(e);
    }
  }

  move(from: number, to: number): Promise<void> {
    return this.save(moveItem(this.tracks, from, to));
  }

  removeAt(index: number): Promise<void> {
    return this.save(this.tracks.filter((_, i) => i !== index));
  }

  async rename(name: string): Promise<void> {
    try {
      this.name = (await this.ops.rename(this.id, name)).name;
    } catch (e) {
      this.onerror(e);
    }
  }

  /** Deletes the playlist; true when it is gone. */
  async remove(): Promise<boolean> {
    try {
      await this.ops.remove(this.id);
      return true;
    } catch (e) {
      this.onerror(e);
      return false;
    }
  }

  /** Waits for the saves under way (tests). */
  settled(): Promise<unknown> {
    return this.saving;
  }

  private save(next: Track[]): Promise<void> {
    this.tracks = next;
    const ids = next.map((x) => x.node.id);
    const run = this.saving.then(async () => {
      try {
        const p = await this.ops.setItems(this.id, ids);
        if (this.tracks === next) this.show(p);
      } catch (e) {
        this.onerror(e);
        try {
          this.show(await this.ops.get(this.id));
        } catch {
          // the error above is reported already
        }
      }
    });
    this.saving = run;
    return run;
  }

  private show(p: Playlist) {
    this.name = p.name;
    this.tracks = p.tracks;
  }
}
