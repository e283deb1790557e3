import { describe, it, expect, vi } from 'vitest';
import { PublicLinkView } from './public-link.svelte';
import { ApiError } from '../api/client';
import type { PublicApi } from '../services/public-link';
import type { Node, NodeWithPath, PublicLink } from '../api/schema.gen';

const node = (id: string, kind: 'file' | 'folder', path: { id: string; name: string }[] = []): NodeWithPath => ({
  id,
  parent_id: path.length ? path[path.length - 1].id : 'owner-root',
  name: id,
  kind,
  size: 1,
  mime: kind === 'folder' ? 'inode/directory' : 'text/plain',
  modified: 0,
  created: 0,
  etag: '"e"',
  favorite: false,
  path,
});
const strip = ({ path: _p, ...n }: NodeWithPath): Node => n;

const locked = () => new ApiError(401, 'unauthenticated', 'password required');
const gone = () => new ApiError(404, 'not_found', 'no such link');

/** A fake link: `role` on node `team` (a folder with `docs` inside), optionally with a password. */
function fakeApi(role: PublicLink['role'], opts: { password?: string; top?: NodeWithPath } = {}) {
  let open = !opts.password;
  const top = opts.top ?? node('team', 'folder');
  const docs = node('docs', 'folder', [{ id: 'team', name: 'team' }]);
  const nodes: Record<string, NodeWithPath> = { [top.id]: top, docs };
  const api = {
    info: vi.fn(async () => {
      if (!open) throw locked();
      return { role, node_id: top.id, expires_at: null, downloads_left: null } satisfies PublicLink;
    }),
    unlock: vi.fn(async (_t: string, pw: string) => {
      if (pw !== opts.password) throw new ApiError(401, 'unauthenticated', 'wrong password');
      open = true;
    }),
    node: vi.fn(async (_t: string, id: string) => {
      if (!open) throw locked();
      if (role === 'drop') throw new ApiError(403, 'permission_denied', 'you may not read here');
      if (!nodes[id]) throw new ApiError(404, 'not_found', 'no such file or folder');
      return nodes[id];
    }),
    children: vi.fn(async (_t: string, id: string) => {
      if (role === 'drop') throw new ApiError(403, 'permission_denied', 'you may not list here');
      return { folder: strip(nodes[id]), items: id === 'team' ? [strip(docs), strip(node('plan.txt', 'file'))] : [], next_cursor: null };
    }),
  } satisfies PublicApi;
  return api;
}

describe('PublicLinkView', () => {
  it('asks for the password, refuses a wrong one, then opens the folder', async () => {
    const api = fakeApi('view', { password: 'secret pass' });
    const v = new PublicLinkView('tok', api);
    await v.open(null);
    expect(v.status).toBe('locked');
    await v.unlock('nope nope');
    expect(v.status).toBe('locked');
    expect(v.unlockError).toBe('Wrong password.');
    await v.unlock('secret pass');
    expect(v.unlockError).toBeNull();
    expect(v.status).toBe('ready');
    expect(v.node?.id).toBe('team');
    expect(v.listing.items.map((n) => n.name)).toEqual(['docs', 'plan.txt']);
    expect(api.unlock).toHaveBeenLastCalledWith('tok', 'secret pass');
  });

  it('returns to the folder that was asked for after unlocking', async () => {
    const api = fakeApi('view', { password: 'secret pass' });
    const v = new PublicLinkView('tok', api);
    await v.open('docs');
    await v.unlock('secret pass');
    expect(v.node?.id).toBe('docs');
    expect(v.crumbs.map((c) => c.id)).toEqual(['team']);
  });

  it('says a link does not exist on 404', async () => {
    const api = fakeApi('view');
    api.info.mockRejectedValueOnce(gone());
    const v = new PublicLinkView('tok', api);
    await v.open(null);
    expect(v.status).toBe('missing');
  });

  it('never lists or reads through a file-drop link', async () => {
    const api = fakeApi('drop');
    const v = new PublicLinkView('tok', api);
    await v.open(null);
    expect(v.status).toBe('ready');
    expect(v.link?.role).toBe('drop');
    expect(v.node).toBeNull();
    expect(api.node).not.toHaveBeenCalled();
    expect(api.children).not.toHaveBeenCalled();
  });

  it('shows a linked file without listing anything', async () => {
    const api = fakeApi('view', { top: node('report.pdf', 'file') });
    const v = new PublicLinkView('tok', api);
    await v.open(null);
    expect(v.status).toBe('ready');
    expect(v.node?.kind).toBe('file');
    expect(api.children).not.toHaveBeenCalled();
  });

  it('locks again when the unlock cookie has run out', async () => {
    const api = fakeApi('view');
    const v = new PublicLinkView('tok', api);
    await v.open(null);
    api.node.mockRejectedValueOnce(locked());
    await v.open('docs');
    expect(v.status).toBe('locked');
  });
});
