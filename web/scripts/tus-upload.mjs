#!/usr/bin/env node
// Uploads one file to nubo's tus endpoint with the real tus-js-client (the
// client the web UI uses), streaming it from disk, retrying and resuming
// after every cut connection. Used by tests/blackbox/test_tus_client.py.
//
//   node scripts/tus-upload.mjs --endpoint http://127.0.0.1:PORT/api/v1/uploads/tus/ \
//     --file PATH --user NAME --password PASS [--name NAME] [--parent ID] [--conflict fail]
//
// Prints one JSON object per line: {"event":"created"|"resumed"|"retry"|"done"|"error", ...}.
// The last line is "done" (with node_id, the new file's id) or "error"; the
// exit code is 0 only after "done".
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import * as tus from 'tus-js-client';

const { values: args } = parseArgs({
  options: {
    endpoint: { type: 'string' },
    file: { type: 'string' },
    user: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    parent: { type: 'string' },
    conflict: { type: 'string', default: 'fail' },
  },
});
for (const k of ['endpoint', 'file', 'user', 'password']) {
  if (!args[k]) {
    console.error(`tus-upload: --${k} is required`);
    process.exit(2);
  }
}

const emit = (event, fields = {}) => process.stdout.write(JSON.stringify({ event, ...fields }) + '\n');
const size = statSync(args.file).size;
const metadata = { filename: args.name ?? basename(args.file), conflict: args.conflict };
if (args.parent) metadata.parent_id = args.parent;
const auth = 'Basic ' + Buffer.from(`${args.user}:${args.password}`).toString('base64');
let retries = 0;

/** Retry what a later attempt can fix: a cut connection, a server error, a lost race. */
function shouldRetry(err) {
  const status = err.originalResponse ? err.originalResponse.getStatus() : 0;
  let code = '';
  try {
    code = JSON.parse(err.originalResponse?.getBody() ?? '{}').error ?? '';
  } catch {
    // not JSON
  }
  const retry = status === 0 || status >= 500 || status === 423 || (status === 409 && code !== 'already_exists');
  if (retry) {
    retries++;
    emit('retry', { status, code, message: String(err.message).split('\n')[0] });
  }
  return retry;
}

const upload = new tus.Upload(createReadStream(args.file), {
  endpoint: args.endpoint,
  metadata,
  uploadSize: size,
  // One PATCH for the rest of the file; a cut one is resumed at the server's offset.
  chunkSize: Number.POSITIVE_INFINITY,
  // Not at once: the server may still be storing what the cut request
  // delivered, and a HEAD answered before that names an offset already gone.
  retryDelays: [500, 1000, 2000, 3000, 5000, 8000],
  onShouldRetry: shouldRetry,
  headers: { Authorization: auth },
  onUploadUrlAvailable: () => emit('url', { url: upload.url }),
  onAfterResponse: (req, res) => {
    if (req.getMethod() === 'POST' && res.getStatus() === 201) emit('created', { location: res.getHeader('Location') });
    if (req.getMethod() === 'HEAD' && res.getStatus() === 200) {
      emit('resumed', { offset: Number(res.getHeader('Upload-Offset')), length: Number(res.getHeader('Upload-Length')) });
    }
  },
  onError: (err) => {
    emit('error', {
      status: err.originalResponse ? err.originalResponse.getStatus() : 0,
      message: String(err.message),
      retries,
    });
    process.exit(1);
  },
  onSuccess: ({ lastResponse }) => {
    const nodeId = lastResponse.getHeader('X-Nubo-Node-Id') ?? null;
    emit('done', { node_id: nodeId, url: upload.url, size, retries });
    process.exit(nodeId ? 0 : 1);
  },
});
upload.start();
