// The application's upload queue (one per tab, outlives page changes).
import { UploadQueue } from './upload-queue.svelte';
import { xhrTransport } from '../services/upload-transport';
import { api } from '../services/api';

export const uploads = new UploadQueue(xhrTransport, { concurrency: 3, refresh: () => api.refresh() });
