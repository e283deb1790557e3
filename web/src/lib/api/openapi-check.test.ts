/// <reference types="node" />
// The contract check itself must be able to fail.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
// @ts-expect-error plain .mjs helper without types
import { generate, operations, usedOperations, unknownOperations } from '../../../scripts/openapi-lib.mjs';
import { OPERATION_KEYS } from './schema.gen';

const docPath = resolve(__dirname, '../../../../src/api/openapi.json');
const doc = JSON.parse(readFileSync(docPath, 'utf8'));

describe('OpenAPI contract', () => {
  it('finds operation strings in source text', () => {
    const text = `api.call('GET /api/v1/nodes/{id}', x); api.url("POST /api/v1/nodes/{id}/upload")`;
    expect(usedOperations(text)).toEqual(['GET /api/v1/nodes/{id}', 'POST /api/v1/nodes/{id}/upload']);
  });

  it('flags operations the document does not define', () => {
    expect(unknownOperations(doc, ['GET /api/v1/nodes/{id}', 'POST /api/v1/shares'])).toEqual(['POST /api/v1/shares']);
  });

  it('the generated types match the document (regenerated before every test run)', () => {
    const keys = operations(doc).map((o: { key: string }) => o.key);
    expect([...OPERATION_KEYS]).toEqual(keys);
    const fresh = generate(doc, '../src/api/openapi.json');
    const onDisk = readFileSync(resolve(__dirname, 'schema.gen.ts'), 'utf8');
    expect(onDisk).toBe(fresh);
  });

  it('generates required, optional and nullable fields', () => {
    const text = generate(
      {
        components: {
          schemas: {
            Thing: {
              type: 'object',
              required: ['id'],
              properties: { id: { type: 'string' }, size: { type: 'integer', nullable: true } },
            },
          },
        },
        paths: {},
      },
      'x',
    );
    expect(text).toContain('export interface Thing {');
    expect(text).toContain('  id: string;');
    expect(text).toContain('  size?: number | null;');
  });
});
