import { describe, it, expect, afterEach } from 'vitest';
import { render, cleanup } from '@testing-library/svelte';
import { tick } from 'svelte';
import UploadPanel from './UploadPanel.svelte';
import { UploadQueue, type TransportResult } from '../lib/state/upload-queue.svelte';

afterEach(cleanup);

describe('UploadPanel', () => {
  it('shows total progress and a clear quota message', async () => {
    const finishers: ((r: TransportResult) => void)[] = [];
    const queue = new UploadQueue({
      send: () => ({ done: new Promise<TransportResult>((r) => finishers.push(r)), abort: () => {} }),
    });
    const { getByTestId, container, findByText } = render(UploadPanel, { props: { queue } });
    queue.add('root', [{ file: new File(['abc'], 'ok.txt') }, { file: new File(['defg'], 'big.bin') }]);
    await tick();
    expect(getByTestId('upload-total').textContent).toBe('0 %');
    finishers[0]({ status: 201 });
    finishers[1]({ status: 507, message: 'quota exceeded' });
    await new Promise((r) => setTimeout(r, 0));
    await tick();
    await findByText('Not enough space: your storage quota is full.');
    expect(container.querySelector('[data-name="ok.txt"]')?.getAttribute('data-status')).toBe('done');
    expect(container.querySelector('[data-name="big.bin"]')?.getAttribute('data-status')).toBe('error');
  });
});

describe('UploadPanel, resumed uploads', () => {
  it('says where an upload that continues an earlier one picked up', async () => {
    let resumed!: (offset: number) => void;
    let finish!: (r: TransportResult) => void;
    const queue = new UploadQueue({
      send: (_job, _progress, onResumed) => {
        resumed = onResumed!;
        return { done: new Promise<TransportResult>((r) => (finish = r)), abort: () => {} };
      },
    });
    const { container, getByTestId } = render(UploadPanel, { props: { queue } });
    queue.add('root', [{ file: new File([new Uint8Array(1000)], 'big.bin') }]);
    await tick();
    expect(container.querySelector('[data-testid=upload-resumed]')).toBeNull();
    resumed(420);
    await tick();
    expect(getByTestId('upload-resumed').textContent).toBe('resumed at 42 %');
    expect(getByTestId('upload-total').textContent).toBe('42 %');
    finish({ status: 201 });
    await new Promise((r) => setTimeout(r, 0));
    await tick();
    // Still said once the upload is done.
    expect(container.querySelector('[data-name="big.bin"]')?.getAttribute('data-status')).toBe('done');
    expect(getByTestId('upload-resumed').textContent).toBe('resumed at 42 %');
  });
});

describe('UploadPanel, delta uploads', () => {
  it('says how many bytes the server already had', async () => {
    let skippedCb!: (bytes: number) => void;
    let finish!: (r: TransportResult) => void;
    const queue = new UploadQueue({
      send: (_job, _progress, _resumed, onSkipped) => {
        skippedCb = onSkipped!;
        return { done: new Promise<TransportResult>((r) => (finish = r)), abort: () => {} };
      },
    });
    const MiB = 1024 * 1024;
    const { container, getByTestId } = render(UploadPanel, { props: { queue } });
    queue.add('root', [{ file: new File([new Uint8Array(6 * MiB)], 'doc.bin') }]);
    await tick();
    expect(container.querySelector('[data-testid=upload-skipped]')).toBeNull();
    skippedCb(4 * MiB);
    await tick();
    expect(getByTestId('upload-skipped').textContent).toBe('4 MiB skipped (already on the server)');
    expect(getByTestId('upload-total').textContent).toBe('66 %');
    // The commit's count is the last word.
    finish({ status: 201, skipped: 5.5 * MiB });
    await new Promise((r) => setTimeout(r, 0));
    await tick();
    expect(container.querySelector('[data-name="doc.bin"]')?.getAttribute('data-status')).toBe('done');
    expect(getByTestId('upload-skipped').textContent).toBe('5.5 MiB skipped (already on the server)');
    expect(getByTestId('upload-skipped').getAttribute('data-bytes')).toBe(String(5.5 * MiB));
  });
});
