// The viewer over a list that is not a folder (search results, recent,
// favorites): opening a previewable file shows it, with previous/next over
// the list's other previewable files, as the Files page does.
import type { Node } from '../api/schema.gen';
import { fileKind, previewable } from '../format';

export class Preview {
  nodes = $state.raw<Node[]>([]);
  index = $state<number | null>(null);

  /** Opens `node` in the viewer; false when it has no preview (download it instead). */
  open(list: readonly Node[], node: Node): boolean {
    const nodes = list.filter((n) => n.kind === 'file' && previewable(fileKind(n)));
    const i = nodes.findIndex((n) => n.id === node.id);
    if (i < 0) return false;
    this.nodes = nodes;
    this.index = i;
    return true;
  }

  close() {
    this.index = null;
  }
}
