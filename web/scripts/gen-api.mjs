#!/usr/bin/env node
// Generates src/lib/api/schema.gen.ts from the server's OpenAPI document
// (../src/api/openapi.json, or NUBO_OPENAPI). Runs before dev, check, build
// and test, so the types always follow the document.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, resolve, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './openapi-lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, '..');
const docPath = resolve(process.env.NUBO_OPENAPI ?? resolve(web, '../src/api/openapi.json'));
const outPath = resolve(web, 'src/lib/api/schema.gen.ts');

const doc = JSON.parse(readFileSync(docPath, 'utf8'));
const text = generate(doc, relative(web, docPath));
if (!existsSync(outPath) || readFileSync(outPath, 'utf8') !== text) {
  writeFileSync(outPath, text);
  console.log(`gen-api: wrote ${relative(web, outPath)}`);
}
