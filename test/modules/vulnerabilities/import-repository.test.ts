import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalInvalidationBus } from '../../../src/lib/invalidation-bus.js';
import { jsonArrayOf } from '../../../src/lib/json-rows.js';
import { VulnerabilityImportRepository } from '../../../src/modules/vulnerabilities/import-repository.js';
import { buildServices } from '../../../src/services.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('an import’s vulnerabilities, merged and read back in pages [%s]', (kind) => {
  let tdb: TestDatabase;
  let org: string;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    const services = buildServices(
      tdb.database,
      () => new Date('2026-01-05T10:00:00Z'),
      new LocalInvalidationBus(),
      {
        authCacheSeconds: 0,
        sessionIdleMinutes: 30,
        sessionMaxHours: 12,
      },
    );
    org = (await services.organizations.ensureFirst()).organization.id;
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it('answers every staged vulnerability once, by key, across page boundaries', async () => {
    const repo = new VulnerabilityImportRepository(tdb.database.db);
    const importId = '01900000-0000-7000-8000-000000000001';
    const keys = ['cve:CVE-2024-0005', 'cve:CVE-2024-0001', 'rule:x:3', 'cve:CVE-2024-0002', 'rule:x:1'];
    await repo.stage(
      org,
      importId,
      jsonArrayOf(
        keys.map((key, i) => ({
          key,
          input: {
            ruleId: `R${i}`,
            cveIds: key.startsWith('cve:') ? [key.slice(4)] : [],
            aliases: [`R${i}`],
            title: `Vulnerability ${i}`,
            cweIds: [],
            severity: 'High' as const,
            cvss3Score: i === 0 ? 9.8 : undefined,
            references: [],
          },
        })),
      ),
    );
    const read = await tdb.database.db.transaction().execute(async (trx) => {
      await repo.merge(org, importId, 'Test', new Date('2026-01-05T10:00:00Z'), trx);
      const pages = [];
      for await (const page of repo.merged(org, importId, trx, 2)) pages.push(page);
      return pages;
    });
    expect(read.map((p) => p.length)).toEqual([2, 2, 1]);
    const all = read.flat();
    expect(all.map((v) => v.key)).toEqual([...keys].sort());
    expect(new Set(all.map((v) => v.id)).size).toBe(5);
    expect(all.find((v) => v.key === 'cve:CVE-2024-0005')).toMatchObject({ cvssScore: '9.8', kev: false });
    await repo.clear(org, importId);
  });
});
