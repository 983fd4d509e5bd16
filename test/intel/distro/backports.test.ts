import { createReadStream, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type BackportDecision,
  type DistroAdvisory,
  decideBackports,
} from '../../../src/intel/distro/backports.js';
import { parseDistroBanner } from '../../../src/intel/distro/banners.js';
import { readOsv } from '../../../src/intel/feeds/osv/osv.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'intel');
const DIR = join(FIXTURES, 'osv-ubuntu');

/** Every fixture of a folder as the feed's OSV reader reads it (`upstream` and `related` included). */
async function loadRecords(dir = DIR): Promise<DistroAdvisory[]> {
  const records: DistroAdvisory[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const warnings: string[] = [];
    for await (const advisory of readOsv(createReadStream(join(dir, file)), {
      warn: (w) => warnings.push(w),
    }))
      records.push(advisory);
    expect(warnings, file).toEqual([]);
  }
  return records;
}

let records: DistroAdvisory[] = [];
beforeAll(async () => {
  records = await loadRecords();
});

function decide(banner: string): Map<string, BackportDecision> {
  const build = parseDistroBanner(banner);
  if (!build) throw new Error(`not a build: ${banner}`);
  return new Map(decideBackports(build, records).map((d) => [d.cveId, d]));
}

function statuses(banner: string): Record<string, string> {
  return Object.fromEntries([...decide(banner)].map(([id, d]) => [id, d.status]));
}

const OPENSSH_CVES = ['CVE-2021-41617', 'CVE-2023-38408', 'CVE-2023-48795', 'CVE-2024-6387'];

describe('decideBackports on the real Ubuntu records (the shared README table, row by row)', () => {
  it('reads all 15 records', () => {
    expect(records).toHaveLength(15);
  });

  it('22.04 Ubuntu-3ubuntu0.1: affected by 38408, 48795, 6387; fixed for 41617 (fixed 1:8.9p1-3)', () => {
    expect(statuses('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1')).toEqual({
      'CVE-2021-41617': 'Fixed',
      'CVE-2023-38408': 'Affected',
      'CVE-2023-48795': 'Affected',
      'CVE-2024-6387': 'Affected',
    });
    const d = decide('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1');
    expect(d.get('CVE-2021-41617')?.evidence).toMatch(/^fixed in 1:8\.9p1-3 by CVE-2021-41617/);
    expect(d.get('CVE-2023-48795')).toMatchObject({
      fixedVersion: '1:8.9p1-3ubuntu0.5',
      ecosystem: 'Ubuntu:22.04:LTS',
    });
  });

  it('22.04 Ubuntu-3ubuntu0.6: affected by CVE-2024-6387 only', () => {
    expect(statuses('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6')).toEqual({
      'CVE-2021-41617': 'Fixed',
      'CVE-2023-38408': 'Fixed',
      'CVE-2023-48795': 'Fixed',
      'CVE-2024-6387': 'Affected',
    });
    expect(decide('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6').get('CVE-2023-38408')).toMatchObject({
      evidence: expect.stringMatching(/^fixed in 1:8\.9p1-3ubuntu0\.3 by USN-6242-1 \(CVE-2023-38408\)/),
      recordIds: ['CVE-2023-38408', 'USN-6242-1'],
    });
  });

  it.each(['0.10', '0.13'])('22.04 Ubuntu-3ubuntu%s: none of the four OpenSSH CVEs', (revision) => {
    const decisions = decide(`SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu${revision}`);
    expect([...decisions.keys()]).toEqual(OPENSSH_CVES);
    for (const decision of decisions.values()) expect(decision.status).toBe('Fixed');
    expect(decisions.get('CVE-2024-6387')?.evidence).toBe(
      `fixed in 1:8.9p1-3ubuntu0.10 by USN-6859-1 (CVE-2024-6387) (Ubuntu:22.04:LTS openssh 1:8.9p1-3ubuntu${revision})`,
    );
  });

  it('24.04 Ubuntu-3ubuntu13: affected by CVE-2024-6387 (fixed 13.3), fixed for CVE-2023-48795', () => {
    const s = statuses('SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13');
    expect(s['CVE-2024-6387']).toBe('Affected');
    expect(s['CVE-2023-48795']).toBe('Fixed');
    expect(decide('SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13').get('CVE-2024-6387')?.fixedVersion).toBe(
      '1:9.6p1-3ubuntu13.3',
    );
  });

  it.each(['13.3', '13.5', '13.8'])(
    '24.04 Ubuntu-3ubuntu%s: fixed for CVE-2024-6387 and CVE-2023-48795',
    (revision) => {
      const s = statuses(`SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu${revision}`);
      expect(s['CVE-2024-6387']).toBe('Fixed');
      expect(s['CVE-2023-48795']).toBe('Fixed');
      expect(Object.values(s)).not.toContain('Affected');
    },
  );

  it('23.10 Ubuntu-1ubuntu3.6: fixed for CVE-2024-6387 by USN-6859-1 (the CVE record has no 23.10 entry)', () => {
    const d = decide('SSH-2.0-OpenSSH_9.3p1 Ubuntu-1ubuntu3.6').get('CVE-2024-6387');
    expect(d).toMatchObject({
      status: 'Fixed',
      fixedVersion: '1:9.3p1-1ubuntu3.6',
      ecosystem: 'Ubuntu:23.10',
    });
    expect(d?.evidence).toMatch(/^fixed in 1:9\.3p1-1ubuntu3\.6 by USN-6859-1/);
  });

  it('20.04 Ubuntu-4ubuntu0.5: affected by 38408, 48795, 41617; CVE-2024-6387 has no 20.04 entry', () => {
    expect(statuses('SSH-2.0-OpenSSH_8.2p1 Ubuntu-4ubuntu0.5')).toEqual({
      'CVE-2021-41617': 'Affected',
      'CVE-2023-38408': 'Affected',
      'CVE-2023-48795': 'Affected',
      'CVE-2024-6387': 'Undecidable',
    });
    const d = decide('SSH-2.0-OpenSSH_8.2p1 Ubuntu-4ubuntu0.5');
    expect(d.get('CVE-2021-41617')).toMatchObject({
      fixedVersion: '1:8.2p1-4ubuntu0.11',
      ecosystem: 'Ubuntu:20.04:LTS',
    });
    expect(d.get('CVE-2024-6387')?.evidence).toMatch(/no openssh entry for the release of 8\.2p1/);
  });

  it.each([
    ['Server: Apache/2.4.41 (Ubuntu)', ['CVE-2023-25690', 'CVE-2024-38476'], '2.4.41-4ubuntu3.14'],
    ['Server: Apache/2.4.52 (Ubuntu)', ['CVE-2023-25690', 'CVE-2024-38476'], '2.4.52-1ubuntu4.4'],
    ['Server: nginx/1.18.0 (Ubuntu)', ['CVE-2021-23017'], '1.18.0-0ubuntu1.2'],
  ])('%j: undecidable from the banner (revision not visible)', (banner, cves, firstFix) => {
    const decisions = decide(banner);
    expect([...decisions.keys()]).toEqual(cves);
    for (const decision of decisions.values()) {
      expect(decision.status).toBe('Undecidable');
      expect(decision.evidence).toMatch(/banner-only$/);
    }
    expect(decisions.get(cves[0]!)?.evidence).toContain(firstFix);
  });

  it('a bare OpenSSH banner or another distribution decides nothing', () => {
    expect(decide('SSH-2.0-OpenSSH_8.9p1').size).toBe(0);
    expect(decide('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3').size).toBe(0);
  });

  it('Ubuntu Pro: a build at the ESM fix is fixed, before it affected (redis, CVE-2023-28856)', () => {
    const build = {
      product: 'Redis',
      upstreamVersion: '5.0.7',
      distribution: 'Ubuntu' as const,
      packageName: 'redis',
      decidable: true,
    };
    const at = (packageVersion: string) =>
      decideBackports({ ...build, packageVersion }, records).find((d) => d.cveId === 'CVE-2023-28856');
    expect(at('5:5.0.7-2ubuntu0.1+esm2')).toMatchObject({
      status: 'Fixed',
      ecosystem: 'Ubuntu:Pro:20.04:LTS',
    });
    expect(at('5:5.0.7-2ubuntu0.1')).toMatchObject({ status: 'Affected' });
  });
});

describe('decideBackports on a build it cannot read', () => {
  it('a package version dpkg refuses is undecidable, not an exception', async () => {
    const records = [
      {
        id: 'CVE-2024-6387',
        aliases: [],
        affected: [
          {
            ecosystem: 'Ubuntu:22.04:LTS',
            name: 'openssh',
            ranges: [
              { type: 'ECOSYSTEM' as const, events: [{ introduced: '0' }, { fixed: '1:8.9p1-3ubuntu0.10' }] },
            ],
            versions: [],
          },
        ],
      },
    ];
    const build = {
      product: 'OpenSSH',
      upstreamVersion: '8.9p1',
      distribution: 'Ubuntu' as const,
      packageName: 'openssh',
      packageVersion: '1:8.9p1-3ubuntu0.10_x',
      decidable: true,
    };
    expect(decideBackports(build, records)).toEqual([
      expect.objectContaining({ cveId: 'CVE-2024-6387', status: 'Undecidable' }),
    ]);
    expect(decideBackports({ ...build, packageVersion: '1:8.9p1-3ubuntu0.9' }, records)[0]?.status).toBe(
      'Affected',
    );
  });
});

describe("decideBackports on Debian records in osv.dev's current shape (the CVE in upstream)", () => {
  const BOOKWORM = 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10';
  let debian: DistroAdvisory[] = [];
  beforeAll(async () => {
    debian = await loadRecords(join(FIXTURES, 'osv-debian'));
  });

  const decideDebian = (banner: string, list = debian) =>
    new Map(decideBackports(parseDistroBanner(banner)!, list).map((d) => [d.cveId, d]));

  it('a DSA naming its CVE in upstream decides it, as the same record with the CVE in aliases does', () => {
    const dsa = debian.find((r) => r.id === 'DSA-5454-1')!;
    expect(dsa.aliases).toEqual([]);
    const asUpstream = decideDebian(BOOKWORM, [dsa]).get('CVE-2023-38408');
    const asAlias = decideDebian(BOOKWORM, [{ ...dsa, aliases: ['CVE-2023-38408'], upstream: [] }]).get(
      'CVE-2023-38408',
    );
    expect(asUpstream).toMatchObject({
      status: 'Fixed',
      fixedVersion: '1:9.2p1-2+deb12u1',
      ecosystem: 'Debian:12',
    });
    expect(asUpstream).toEqual(asAlias);
  });

  it('the stock bookworm sshd (deb12u10) carries both fixes; deb12u2 lacks the regreSSHion one', () => {
    const stock = decideDebian(BOOKWORM);
    expect(Object.fromEntries([...stock].map(([id, d]) => [id, d.status]))).toEqual({
      'CVE-2023-38408': 'Fixed',
      'CVE-2024-6387': 'Fixed',
    });
    expect(stock.get('CVE-2024-6387')?.evidence).toBe(
      'fixed in 1:9.2p1-2+deb12u3 by DEBIAN-CVE-2024-6387 (Debian:12 openssh 1:9.2p1-2+deb12u10)',
    );
    const old = decideDebian('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u2');
    expect(old.get('CVE-2024-6387')?.status).toBe('Affected');
    expect(old.get('CVE-2023-38408')?.status).toBe('Fixed');
  });

  it('a record whose upstream names no CVE decides nothing; a Debian record says nothing of an Ubuntu build', () => {
    const dsa = debian.find((r) => r.id === 'DSA-5454-1')!;
    expect(
      decideBackports(parseDistroBanner(BOOKWORM)!, [{ ...dsa, upstream: ['not-a-cve', 'DLA-1-1'] }]),
    ).toEqual([]);
    expect(decideBackports(parseDistroBanner('SSH-2.0-OpenSSH_9.2p1 Ubuntu-2ubuntu1')!, debian)).toEqual([]);
  });
});
