import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, waitFor, fireEvent } from '@testing-library/svelte';
import JobsCard from './JobsCard.svelte';
import type { JobStatus } from '../lib/services/jobs';

afterEach(cleanup);

const status = (over: Partial<JobStatus> = {}): JobStatus => ({
  due: 3,
  running: 1,
  retrying: 2,
  done: 1234,
  failed: 5,
  failing: [
    { kind: 'extract_text', attempts: 3, error: 'pdf: <b>broken</b> xref', next_attempt: Date.UTC(2026, 0, 2, 12) },
    { kind: 'thumbnail', attempts: 8, error: 'decoder crashed', next_attempt: null },
  ],
  ...over,
});

describe('JobsCard', () => {
  it('shows the counts and the failing jobs with their next attempt', async () => {
    const { getByTestId, container } = render(JobsCard, { props: { load: async () => status(), onerror: vi.fn() } });
    const card = getByTestId('jobs-card');
    await waitFor(() => expect(card.querySelector('[data-count=done] dd')?.textContent).toBe('1,234'));
    const count = (k: string) => card.querySelector(`[data-count=${k}] dd`)?.textContent;
    expect([count('due'), count('running'), count('retrying'), count('failed')]).toEqual(['3', '1', '2', '5']);
    expect(card.querySelector('h2')?.textContent).toBe('Background jobs');
    const rows = [...container.querySelectorAll('[data-testid=jobs-failing] tbody tr')] as HTMLElement[];
    expect(rows.map((r) => r.dataset.kind)).toEqual(['extract_text', 'thumbnail']);
    expect(rows[0].textContent).toContain('pdf: <b>broken</b> xref'); // the error as text
    expect(rows[0].querySelector('b')).toBeNull();
    expect(rows[0].textContent).toMatch(/2026/);
    expect(rows[1].textContent).toContain('given up');
  });

  it('says when nothing fails, and asks again on Refresh', async () => {
    const load = vi.fn(async () => status({ failing: [], due: 0 }));
    const { getByTestId, getByRole } = render(JobsCard, { props: { load, onerror: vi.fn() } });
    await waitFor(() => getByTestId('jobs-none-failing'));
    await fireEvent.click(getByRole('button', { name: 'Refresh' }));
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('asks again by itself while jobs wait or run, and stops once the queue is idle', async () => {
    const answers = [status({ due: 2, running: 1 }), status({ due: 0, running: 1 }), status({ due: 0, running: 0 })];
    const load = vi.fn(async () => answers[Math.min(load.mock.calls.length - 1, answers.length - 1)]);
    const { getByTestId } = render(JobsCard, { props: { load, onerror: vi.fn(), pollMs: 5 } });
    const running = () => getByTestId('jobs-card').querySelector('[data-count=running] dd')?.textContent;
    await waitFor(() => expect(running()).toBe('0'));
    await new Promise((r) => setTimeout(r, 50));
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('reports a failed load', async () => {
    const onerror = vi.fn();
    const boom = new Error('403');
    render(JobsCard, { props: { load: () => Promise.reject(boom), onerror } });
    await waitFor(() => expect(onerror).toHaveBeenCalledWith(boom));
  });
});
