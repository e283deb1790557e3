import { describe, it, expect, afterEach } from 'vitest';
import { etagValue, forgetThumbFailures, hasThumbnail, markThumbFailed, thumbFailed } from './thumbnails';

afterEach(forgetThumbFailures);

describe('thumbnails', () => {
  it('are asked for images, videos, PDFs and audio (covers) only', () => {
    const file = (mime: string) => ({ kind: 'file', mime });
    expect(hasThumbnail(file('image/png'))).toBe(true);
    expect(hasThumbnail(file('IMAGE/JPEG'))).toBe(true);
    expect(hasThumbnail(file('video/mp4'))).toBe(true);
    expect(hasThumbnail(file('application/pdf'))).toBe(true);
    expect(hasThumbnail(file('audio/mpeg'))).toBe(true);
    expect(hasThumbnail(file('text/plain'))).toBe(false);
    expect(hasThumbnail(file('application/zip'))).toBe(false);
    expect(hasThumbnail({ kind: 'folder', mime: 'image/png' })).toBe(false);
  });

  it('use the ETag without quotes as v', () => {
    expect(etagValue('"2f0f1c44efae24b30b574cb41ba5790a"')).toBe('2f0f1c44efae24b30b574cb41ba5790a');
    expect(etagValue('W/"abc"')).toBe('abc');
    expect(etagValue('abc')).toBe('abc');
  });

  it('remember failures per URL (a new version is a new URL)', () => {
    markThumbFailed('/t/1?v=a');
    expect(thumbFailed('/t/1?v=a')).toBe(true);
    expect(thumbFailed('/t/1?v=b')).toBe(false);
  });
});
