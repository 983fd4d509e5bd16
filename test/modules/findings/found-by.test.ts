import { describe, expect, it } from 'vitest';
import { foundBy } from '../../../src/modules/findings/presenters.js';

const SCAN = '0b9c6f0e-5d1a-4c8e-9a57-2f4f0d6f1c11';
const IMPORT = '6a1f3c2d-9e8b-4f7a-8c6d-5b4a3e2d1c0f';

describe('foundBy: the Rampart scan a finding came from, read from its scope', () => {
  it('names the system or web scan and the import of its last run', () => {
    expect(foundBy({ scopeName: `system-scan:${SCAN}`, lastImportId: IMPORT })).toEqual({
      Kind: 'System',
      ScanId: SCAN,
      ImportId: IMPORT,
    });
    expect(foundBy({ scopeName: `web-scan:${SCAN}`, lastImportId: null })).toEqual({
      Kind: 'Web',
      ScanId: SCAN,
      ImportId: null,
    });
  });

  it('is null for imported findings and for scopes that only look like a scan', () => {
    expect(foundBy({ scopeName: null, lastImportId: IMPORT })).toBeNull();
    expect(foundBy({ scopeName: 'nessus:prod', lastImportId: IMPORT })).toBeNull();
    expect(foundBy({ scopeName: `discovery-scan:${SCAN}`, lastImportId: IMPORT })).toBeNull();
    expect(foundBy({ scopeName: `system-scan:${SCAN}x`, lastImportId: IMPORT })).toBeNull();
    expect(foundBy({ scopeName: `system-scan:${'-'.repeat(36)}`, lastImportId: IMPORT })).toBeNull();
  });
});
