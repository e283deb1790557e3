import { describe, it, expect } from 'vitest';
import { thumbnailUrl } from './files';
import { publicThumbnailUrl } from './public-link';
import type { Node } from '../api/schema.gen';

const node = (mime: string, kind: 'file' | 'folder' = 'file'): Node => ({
  id: '01a2-b',
  parent_id: 'root',
  name: 'x',
  kind,
  size: 1,
  mime,
  modified: 0,
  created: 0,
  etag: '"2f0f1c44efae24b30b574cb41ba5790a"',
  favorite: false,
});

describe('thumbnail URLs', () => {
  it('carry the size and the ETag value, so the answer is cached for good', () => {
    expect(thumbnailUrl(node('image/png'))).toBe('/api/v1/nodes/01a2-b/thumbnail?size=small&v=2f0f1c44efae24b30b574cb41ba5790a');
    expect(thumbnailUrl(node('application/pdf'), 'large')).toBe(
      '/api/v1/nodes/01a2-b/thumbnail?size=large&v=2f0f1c44efae24b30b574cb41ba5790a',
    );
    expect(publicThumbnailUrl('tok', node('video/mp4'))).toBe(
      '/api/v1/public/tok/nodes/01a2-b/thumbnail?size=small&v=2f0f1c44efae24b30b574cb41ba5790a',
    );
  });

  it('are not made for files without a preview, nor for folders', () => {
    expect(thumbnailUrl(node('text/plain'))).toBeNull();
    expect(thumbnailUrl(node('inode/directory', 'folder'))).toBeNull();
    expect(publicThumbnailUrl('tok', node('application/zip'))).toBeNull();
  });
});
