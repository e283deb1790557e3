#!/usr/bin/env node
// Fails when the UI calls an operation ("METHOD /api/v1/...") that the server's
// OpenAPI document does not define. TypeScript catches the same through the
// generated Operations type; this check also covers strings TypeScript cannot
// see (URLs built for <img>/<video> src, downloads) and names the culprit.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usedOperations, unknownOperations } from './openapi-lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, '..');
const docPath = resolve(process.env.NUBO_OPENAPI ?? resolve(web, '../src/api/openapi.json'));
const doc = JSON.parse(readFileSync(docPath, 'utf8'));

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|svelte)$/.test(name) && !/\.gen\.ts$/.test(name) && !/\.test\.ts$/.test(name)) yield p;
  }
}

let problems = 0;
let total = 0;
for (const file of walk(resolve(web, 'src'))) {
  const used = usedOperations(readFileSync(file, 'utf8'));
  total += used.length;
  for (const op of unknownOperations(doc, used)) {
    console.error(`check-api: ${relative(web, file)} uses "${op}", which ${relative(web, docPath)} does not define`);
    problems++;
  }
}
if (total === 0) {
  console.error('check-api: found no API operations in src/ (the scan is broken)');
  process.exit(1);
}
if (problems) process.exit(1);
console.log(`check-api: ${total} operation uses, all in the OpenAPI document`);
