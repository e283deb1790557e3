// The signed-in user's drives (GET /drives): the personal one, and the
// shared drives it is a member of, with role, usage and quota. Filled by
// services/session.ts; read by the shell (navigation, usage), the Files page
// and the Trash page.
import type { Drive } from '../api/schema.gen';

class DrivesState {
  all = $state.raw<Drive[]>([]);
  personal = $derived(this.all.find((d) => d.kind === 'personal') ?? null);
  shared = $derived(this.all.filter((d) => d.kind === 'shared'));
  /** the id of the drive the Files page shows (the navigation marks it); null elsewhere */
  current = $state<string | null>(null);

  byId(id: string | null | undefined): Drive | null {
    return (id && this.all.find((d) => d.id === id)) || null;
  }

  /** The name of the shared drive whose root folder this is; null for the personal drive or one not known. */
  sharedName(rootId: string): string | null {
    const d = this.all.find((x) => x.root_id === rootId);
    return d?.kind === 'shared' ? d.name : null;
  }
}

export const drives = new DrivesState();
