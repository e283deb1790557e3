// The server's background jobs (text extraction for the content search,
// thumbnails), as administrators see them on the admin page.
import { api } from './api';
import type { Operations } from '../api/schema.gen';

export type JobStatus = Operations['GET /api/v1/admin/jobs']['response'];
export type FailingJob = JobStatus['failing'][number];

export function jobStatus(): Promise<JobStatus> {
  return api.call('GET /api/v1/admin/jobs');
}
