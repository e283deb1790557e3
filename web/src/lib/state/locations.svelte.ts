// Where nodes live, for lists outside the folder view (search, recent,
// favorites): a folder's path from the drive root (or, shared with the user,
// from the shared folder) as names, led by the drive's name in a shared
// drive (the personal drive's root has none: "Home"), fetched once per
// distinct folder and only when a row asks for it (rows ask when they become
// visible). One answer also tells the paths of every folder above it.
import type { NodeWithPath } from '../api/schema.gen';

/** Folder names below the drive root (a shared drive's name first); [] is the personal drive's root. */
export type Place = readonly string[];

export type FolderLoader = (id: string) => Promise<NodeWithPath>;

export class Locations {
  /** folder id → its place; null when it could not be loaded */
  places = $state<Record<string, Place | null>>({});
  private asked = new Set<string>();
  private queue: string[] = [];
  private running = 0;

  constructor(
    private readonly load: FolderLoader,
    private readonly concurrency = 4,
    /** the name of a shared drive by its root folder's id; null for the personal drive (or unknown) */
    private readonly driveName: (rootId: string) => string | null = () => null,
  ) {}

  /** The place of a folder: undefined while unknown, null when it failed. */
  get(id: string): Place | null | undefined {
    return this.places[id];
  }

  /** Asks for a folder's place (once; later calls are free). */
  want(id: string) {
    if (this.asked.has(id)) return;
    this.asked.add(id);
    this.queue.push(id);
    this.pump();
  }

  private pump() {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      if (id in this.places) continue; // learnt from another folder's path
      this.running++;
      this.load(id)
        .then(
          (node) => this.learn(node),
          () => (this.places[id] = null),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  private learn(node: NodeWithPath) {
    // path: from the drive root (nameless) down to the node's parent; for a
    // node shared with the caller, from the shared folder (named) down.
    const root = node.path.length > 0 ? node.path[0].name === '' : node.name === '';
    const skip = root ? 1 : 0;
    const drive = root ? this.driveName(node.path[0]?.id ?? node.id) : null;
    const names = [...(drive === null ? [] : [drive]), ...node.path.slice(skip).map((p) => p.name)];
    const lead = drive === null ? 0 : 1;
    node.path.forEach((entry, i) => {
      if (!(entry.id in this.places)) this.places[entry.id] = names.slice(0, i + 1 - skip + lead);
      this.asked.add(entry.id);
    });
    this.places[node.id] = node.path.length === 0 && root ? names : [...names, node.name];
  }
}
