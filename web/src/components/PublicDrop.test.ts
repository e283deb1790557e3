import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import { tick } from 'svelte';
import PublicDrop from './PublicDrop.svelte';
import { UploadQueue, type TransportResult } from '../lib/state/upload-queue.svelte';

afterEach(cleanup);

describe('PublicDrop', () => {
  it("lists only this visitor's uploads, under the names the server stored them as", async () => {
    const finishers: ((r: TransportResult) => void)[] = [];
    const queue = new UploadQueue({
      send: () => ({ done: new Promise<TransportResult>((r) => finishers.push(r)), abort: () => {} }),
    });
    const onpick = vi.fn((files: FileList) => queue.add('drop', [...files].map((file) => ({ file }))));
    const { container, getByText, getByTestId } = render(PublicDrop, { props: { queue, ondrop: vi.fn(), onpick } });
    getByText('Nothing uploaded yet.');
    const input = getByTestId('link-file-input') as HTMLInputElement;
    const picked = [new File(['x'], 'report.pdf'), new File(['y'], 'notes.txt')];
    Object.defineProperty(input, 'files', { value: Object.assign(picked, { item: (i: number) => picked[i] }) });
    await fireEvent.change(input);
    expect(onpick).toHaveBeenCalledTimes(1);
    finishers[0]({ status: 201, name: 'report (1).pdf' });
    finishers[1]({ status: 403, message: 'you may not upload here' });
    await new Promise((r) => setTimeout(r, 0));
    await tick();
    const rows = [...container.querySelectorAll('[data-testid=my-uploads] li')].map((li) => [
      li.getAttribute('data-name'),
      li.getAttribute('data-status'),
    ]);
    expect(rows).toEqual([
      ['report (1).pdf', 'done'],
      ['notes.txt', 'error'],
    ]);
    getByText('you may not upload here');
    // A drop page never shows a listing of the folder.
    expect(container.querySelector('table')).toBeNull();
  });
});
