import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalInvalidationBus } from '../../../src/lib/invalidation-bus.js';
import { copyField } from '../../../src/modules/findings/copy-staging.js';
import {
  FindingImportRepository,
  type StagedFinding,
} from '../../../src/modules/findings/import-repository.js';
import { buildServices } from '../../../src/services.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// Every character COPY's text format treats specially, a literal `\N`, a `\.` line, and text
// beyond ASCII (two-, three- and four-byte UTF-8).
const TRICKY = 'a\tb\\c\nd\re\\N\n\\.\nZürich — 東京 🛡️ \\t end';

const finding = (seq: number, text: string | null): StagedFinding => ({
  seq,
  assetKey: `asset ${text ?? ''}`,
  vulnerabilityKey: `vuln ${text ?? ''}`,
  locationKey: `location ${text ?? ''}`,
  locationKind: 'Package',
  port: null,
  protocol: null,
  url: text,
  parameter: text,
  filePath: text,
  line: 7,
  packageName: text,
  packageVersion: text,
  title: `title ${text ?? ''}`,
  severity: 'High',
  evidence: text,
  toolFindingId: text,
  state: null,
  stateReason: text,
  confidence: null,
});

describe('COPY text fields', () => {
  it('escapes backslash, tab and line ends, and writes null as \\N', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField(42)).toBe('42');
    expect(copyField('\\N')).toBe('\\\\N');
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyField('Zürich')).toBe('Zürich');
  });
});

describe.each(DB_KINDS)('findings staged through COPY [%s]', (kind) => {
  let tdb: TestDatabase;
  let org: string;
  let repo: FindingImportRepository;

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
    repo = new FindingImportRepository(tdb.database.db, tdb.database.connection);
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  const staged = (importId: string) =>
    tdb.database.db
      .selectFrom('import_findings')
      .selectAll()
      .where('organization_id', '=', org)
      .where('import_id', '=', importId)
      .orderBy('seq')
      .execute();

  it('keeps every text field byte for byte, nulls as null', async () => {
    const importId = '01900000-0000-7000-8000-0000000000c1';
    const staging = await repo.openStaging(org, importId);
    await staging.add(finding(0, TRICKY));
    await staging.add(finding(1, null));
    // Past the write chunk (64 K characters), so that more than one chunk is sent.
    for (let seq = 2; seq < 3_000; seq += 1) await staging.add(finding(seq, `${TRICKY} ${seq}`));
    await staging.finish();

    const rows = await staged(importId);
    expect(rows).toHaveLength(3_000);
    expect(rows[0]).toMatchObject({
      seq: 0,
      asset_key: `asset ${TRICKY}`,
      vulnerability_key: `vuln ${TRICKY}`,
      location_key: `location ${TRICKY}`,
      location_kind: 'Package',
      port: null,
      protocol: null,
      url: TRICKY,
      parameter: TRICKY,
      file_path: TRICKY,
      line: 7,
      package_name: TRICKY,
      package_version: TRICKY,
      title: `title ${TRICKY}`,
      severity: 'High',
      evidence: TRICKY,
      tool_finding_id: TRICKY,
      state: null,
      state_reason: TRICKY,
      confidence: null,
    });
    expect(Buffer.from(rows[0]?.evidence ?? '')).toEqual(Buffer.from(TRICKY));
    expect(rows[1]).toMatchObject({ url: null, evidence: null, title: 'title ', state_reason: null });
    expect(rows[2_999]?.evidence).toBe(`${TRICKY} 2999`);
  });

  it('stages nothing when the import is abandoned, and closes its connection', async () => {
    const importId = '01900000-0000-7000-8000-0000000000c2';
    const connections = async () =>
      Number(
        (
          await tdb.database.db
            .selectFrom('pg_stat_activity' as never)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await connections();
    const staging = await repo.openStaging(org, importId);
    for (let seq = 0; seq < 2_000; seq += 1) await staging.add(finding(seq, `row ${seq}`));
    await staging.abort();
    expect(await staged(importId)).toEqual([]);
    await expect.poll(connections).toBeLessThanOrEqual(before);
  });

  it('fails on a row the database refuses, staging none of the import', async () => {
    const importId = '01900000-0000-7000-8000-0000000000c3';
    const staging = await repo.openStaging(org, importId);
    await staging.add(finding(0, 'fine'));
    // PostgreSQL text cannot hold NUL: the COPY fails as the JSON statement did.
    await staging.add(finding(1, 'nul \u0000 here'));
    await expect(staging.finish()).rejects.toThrow(/0x00|null character/i);
    await staging.abort();
    expect(await staged(importId)).toEqual([]);
  });

  it('adds nothing twice when rows of the same import are already staged (a killed attempt’s)', async () => {
    const importId = '01900000-0000-7000-8000-0000000000c4';
    const first = await repo.openStaging(org, importId);
    await first.add(finding(0, 'from the killed attempt'));
    await first.finish();
    const second = await repo.openStaging(org, importId);
    await second.add(finding(0, 'from the killed attempt'));
    await second.add(finding(1, 'new'));
    await second.finish();
    expect((await staged(importId)).map((r) => [r.seq, r.evidence])).toEqual([
      [0, 'from the killed attempt'],
      [1, 'new'],
    ]);
  });
});
