import { describe, expect, it } from 'vitest';
import { JsonRows, jsonArrayOf } from '../../src/lib/json-rows.js';

describe('JsonRows', () => {
  it('gives the rows added as the JSON array JSON.stringify makes of them, then starts again', () => {
    const rows = new JsonRows<{ id: number; title: string; port?: number; evidence: string | null }>();
    const added = [
      { id: 1, title: 'quote " and \\ backslash', port: 443, evidence: null },
      { id: 2, title: 'line\nbreak, tab\t and ünïcode ✓', evidence: 'x'.repeat(1000) },
      // Undefined fields are left out, as JSON.stringify leaves them out of an array's objects.
      { id: 3, title: 'no port', port: undefined, evidence: '' },
    ];
    for (const row of added) rows.add(row);
    expect(rows.length).toBe(3);
    const json = rows.take();
    expect(json).toBe(JSON.stringify(added));
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(added)));
    expect(rows.length).toBe(0);
    expect(rows.take()).toBe('[]');
    rows.add(added[0]!);
    expect(rows.take()).toBe(jsonArrayOf([added[0]]));
  });
});
