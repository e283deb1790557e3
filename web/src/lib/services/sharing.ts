// Grants, public links and the lists of shares over the REST API
// (docs/sharing.md). The share dialog's model gets these as one object, so
// its tests can hand it a fake.
import { api } from './api';
import type {
  Grant,
  GrantPatch,
  GrantSpec,
  Group,
  Link,
  LinkPatch,
  LinkSpec,
  Sharee,
  SharedByMe,
  SharedWithMe,
} from '../api/schema.gen';

export interface SharingApi {
  grants(nodeId: string): Promise<Grant[]>;
  addGrant(nodeId: string, spec: GrantSpec): Promise<Grant>;
  patchGrant(id: string, patch: GrantPatch): Promise<Grant>;
  removeGrant(id: string): Promise<void>;
  links(nodeId: string): Promise<Link[]>;
  createLink(nodeId: string, spec: LinkSpec): Promise<Link>;
  updateLink(id: string, patch: LinkPatch): Promise<Link>;
  removeLink(id: string): Promise<void>;
  /** the groups one may share with: every group for administrators, one's own for others */
  groups(): Promise<Group[]>;
  /** users and groups to suggest for a name prefix (the server's sharing.sharee_search decides whom) */
  sharees(q: string): Promise<Sharee[]>;
}

/** Every group the caller may see, all pages. */
export async function allGroups(): Promise<Group[]> {
  const out: Group[] = [];
  let after: string | undefined;
  do {
    const page = await api.call('GET /api/v1/groups', { query: { limit: 500, after } });
    out.push(...page.items);
    after = page.next_after ?? undefined;
  } while (after);
  return out;
}

export const sharing: SharingApi = {
  async grants(id) {
    return (await api.call('GET /api/v1/nodes/{id}/grants', { path: { id } })).items;
  },
  addGrant(id, spec) {
    return api.call('POST /api/v1/nodes/{id}/grants', { path: { id }, body: spec });
  },
  patchGrant(id, patch) {
    return api.call('PATCH /api/v1/grants/{id}', { path: { id }, body: patch });
  },
  removeGrant(id) {
    return api.call('DELETE /api/v1/grants/{id}', { path: { id } });
  },
  async links(id) {
    return (await api.call('GET /api/v1/nodes/{id}/links', { path: { id } })).items;
  },
  createLink(id, spec) {
    return api.call('POST /api/v1/nodes/{id}/links', { path: { id }, body: spec });
  },
  updateLink(id, patch) {
    return api.call('PATCH /api/v1/links/{id}', { path: { id }, body: patch });
  },
  removeLink(id) {
    return api.call('DELETE /api/v1/links/{id}', { path: { id } });
  },
  groups: allGroups,
  async sharees(q) {
    return (await api.call('GET /api/v1/sharees', { query: { q, limit: 20 } })).items;
  },
};

export function sharedWithMe(cursor?: string | null): Promise<SharedWithMe> {
  return api.call('GET /api/v1/shared-with-me', { query: { limit: 200, cursor: cursor ?? undefined } });
}

/** Leaves a received share out of the caller's own files (hidden) or puts it back; the grant stays. */
export function setShareHidden(id: string, hidden: boolean): Promise<void> {
  return api.call('PUT /api/v1/shared-with-me/{id}', { path: { id }, body: { hidden } });
}

export function sharedByMe(cursor?: string | null): Promise<SharedByMe> {
  return api.call('GET /api/v1/shared-by-me', { query: { limit: 200, cursor: cursor ?? undefined } });
}
