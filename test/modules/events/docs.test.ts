import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/modules/events/catalogue.js';
import { eventCatalogueTable } from '../../../src/modules/events/catalogue-table.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

// docs/events.md shows the catalogue as the code has it: the table is the catalogue's own
// rendering (src/modules/events/catalogue-table.ts says how to print it again).
describe('docs/events.md', () => {
  const doc = read('docs/events.md');

  it('has the catalogue table exactly as the catalogue renders it', () => {
    expect(doc).toContain(eventCatalogueTable());
  });

  it('names every type of the catalogue, the envelope attributes and the delivery semantics', () => {
    for (const type of EVENT_TYPES) expect(doc).toContain(`rampart.${type}`);
    for (const attribute of [
      'specversion',
      'id',
      'source',
      'type',
      'subject',
      'time',
      'datacontenttype',
      'dataschema',
    ])
      expect(doc).toContain(`"${attribute}"`);
    expect(doc).toMatch(/exactly once/);
    expect(doc).toMatch(/at least once/);
    expect(doc).toMatch(/## Versioning/);
  });

  it('is linked from the README', () => {
    expect(read('README.md')).toContain('(docs/events.md)');
  });
});
