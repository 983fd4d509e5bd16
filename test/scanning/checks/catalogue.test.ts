import { describe, expect, it } from 'vitest';
import { CHECKS, checkByGuid, checkById, checkGuid } from '../../../src/scanning/checks/index.js';

describe('the checks catalogue', () => {
  it('has one definition per id, each complete', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of CHECKS) {
      expect(c.id).toMatch(/^[a-z0-9]+(\.[a-z0-9-]+)+$/);
      expect(c.title.length).toBeGreaterThan(5);
      expect(c.description.length).toBeGreaterThan(20);
      expect(c.solution.length).toBeGreaterThan(5);
      expect(['Critical', 'High', 'Medium', 'Low', 'Info']).toContain(c.severity);
    }
  });

  it('gives each check a stable version-5 PluginGuidId that finds it again', () => {
    // Pinned: clients of the original keep these ids; a change here breaks them.
    expect(checkGuid('web.exposed-git')).toBe('d37bc82b-a0b8-54e4-b7c9-6225e7485e4a');
    expect(checkGuid('tls.legacy-version')).toBe('c7c28f91-a5f0-5fdb-bb66-d24d6944d00a');
    expect(checkGuid('tls.legacy-version')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    for (const c of CHECKS) expect(checkByGuid(checkGuid(c.id).toUpperCase())?.id).toBe(c.id);
    expect(new Set(CHECKS.map((c) => checkGuid(c.id))).size).toBe(CHECKS.length);
    expect(checkById('no.such-check')).toBeUndefined();
    expect(checkByGuid('00000000-0000-0000-0000-000000000000')).toBeUndefined();
  });
});
