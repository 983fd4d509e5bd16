import { describe, expect, it } from 'vitest';
import {
  compileConfigurations,
  evaluateConfigurations,
  prepareTarget,
  type TargetInput,
} from '../../../src/intel/cpe/configuration.js';
import { parseCpe } from '../../../src/intel/cpe/cpe.js';
import { CpeMatcher, type CveConfigurations } from '../../../src/intel/cpe/index.js';
import type { Configuration } from '../../../src/intel/types.js';
import { allNvd } from './records.js';
import { syntheticCves, syntheticService } from './synthetic.js';

const records: CveConfigurations[] = allNvd().map((r) => ({ cveId: r.id, configurations: r.configurations }));
const matcher = CpeMatcher.build(records);

function ids(inputs: TargetInput | TargetInput[]): string[] {
  return matcher
    .match(inputs)
    .cves.map((c) => c.cveId)
    .sort();
}

const widgetConfiguration: Configuration = {
  nodes: [
    { operator: 'OR', cpeMatch: [{ criteria: 'cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*', vulnerable: true }] },
  ],
};

describe('CpeMatcher on the NVD fixtures', () => {
  it('indexes the records that have configurations', () => {
    expect(matcher.stats.cves).toBe(39);
    expect(matcher.stats.entries).toBeGreaterThan(600);
    expect(matcher.stats.products).toBeGreaterThan(100);
  });

  it('finds the httpd path traversal CVEs by version', () => {
    expect(ids('cpe:/a:apache:http_server:2.4.49')).toEqual([
      'CVE-2021-41773',
      'CVE-2021-42013',
      'CVE-2023-25690',
    ]);
    expect(ids('cpe:/a:apache:http_server:2.4.50')).toEqual(['CVE-2021-42013', 'CVE-2023-25690']);
    expect(ids('cpe:/a:apache:http_server:2.4.48')).toEqual(['CVE-2023-25690']);
    expect(ids('cpe:/a:apache:http_server:2.4.56')).toEqual([]);
  });

  it('finds regreSSHion for 8.5p1 through 9.7p1, not 8.4p1 or 9.8p1', () => {
    for (const v of ['8.5p1', '9.0p1', '9.7p1', '8.9p1'])
      expect(ids(`cpe:/a:openbsd:openssh:${v}`)).toContain('CVE-2024-6387');
    for (const v of ['8.4p1', '9.8p1'])
      expect(ids(`cpe:/a:openbsd:openssh:${v}`)).not.toContain('CVE-2024-6387');
    expect(ids('cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*')).toContain('CVE-2024-6387');
    expect(ids('cpe:/a:openbsd:openssh:9.8p1')).toEqual([]);
  });

  it('returns the criteria that matched as evidence', () => {
    const [hit] = matcher
      .match('cpe:/a:openbsd:openssh:8.5p1')
      .cves.filter((c) => c.cveId === 'CVE-2024-6387');
    expect(hit).toEqual({
      cveId: 'CVE-2024-6387',
      platformAssumed: false,
      matches: [
        {
          criteria: 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*',
          vulnerable: true,
          cpe: 'cpe:2.3:a:openbsd:openssh:8.5p1:*:*:*:*:*:*:*',
        },
      ],
    });
  });

  it('finds OpenSSL 3.0.0–3.0.6 only', () => {
    expect(ids({ vendor: 'openssl', product: 'openssl', version: '3.0.6' })).toEqual(['CVE-2022-3602']);
    expect(ids({ vendor: 'openssl', product: 'openssl', version: '3.0.7' })).toEqual([]);
    expect(ids({ vendor: 'openssl', product: 'openssl', version: '1.1.1k' })).toEqual([]);
  });

  it('looks a product up under every vendor when none is given', () => {
    expect(ids({ product: 'http_server', version: '2.4.49' })).toEqual([
      'CVE-2021-41773',
      'CVE-2021-42013',
      'CVE-2023-25690',
    ]);
    expect(ids({ product: 'OpenSSH', version: '9.3p1' })).toEqual(['CVE-2023-38408', 'CVE-2024-6387']);
  });

  it('checks running-on platforms against the other inputs', () => {
    const smb = 'cpe:/a:microsoft:server_message_block:1.0';
    const assumed = matcher.match(smb).cves;
    expect(assumed.map((c) => [c.cveId, c.platformAssumed])).toEqual([['CVE-2017-0144', true]]);
    expect(ids([smb, 'cpe:/o:linux:linux_kernel:5.4'])).toEqual([]);
    const onWindows = matcher.match([smb, 'cpe:/o:microsoft:windows_7::sp1']).cves;
    expect(onWindows.map((c) => [c.cveId, c.platformAssumed])).toEqual([
      ['CVE-2015-1635', false],
      ['CVE-2017-0144', false],
    ]);
  });

  it('reports unreadable inputs beside the results of the readable ones', () => {
    const result = matcher.match(['cpe:/a:apache:http_server:2.4.49', 'cpe:2.3:garbage', '']);
    expect(result.cves.map((c) => c.cveId)).toContain('CVE-2021-41773');
    expect(result.errors).toHaveLength(2);
    expect(matcher.match([]).cves).toEqual([]);
    expect(matcher.match('cpe:/a:apache').cves).toEqual([]);
  });

  it('skips broken records while building', () => {
    const built = CpeMatcher.build([
      null as unknown as CveConfigurations,
      { cveId: 'CVE-0000-0001', configurations: 'x' as unknown as Configuration[] },
      { cveId: 'CVE-0000-0002', configurations: [] },
      { cveId: 'CVE-0000-0003', configurations: undefined },
      {
        cveId: 'CVE-0000-0004',
        configurations: [
          { nodes: [{ operator: 'OR', cpeMatch: [{ criteria: 'garbage', vulnerable: true }] }] },
          {
            nodes: [
              {
                operator: 'OR',
                cpeMatch: [{ criteria: 'cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*', vulnerable: true }],
              },
            ],
          },
        ],
      },
    ]);
    expect(built.stats.cves).toBe(1);
    const fromRecords = CpeMatcher.build([
      { id: 'CVE-0000-0006', rejected: false, configurations: [widgetConfiguration] },
      { id: 'CVE-0000-0007', rejected: true, configurations: [widgetConfiguration] },
    ]);
    expect(fromRecords.match('cpe:/a:acme:widget:1.0').cves.map((c) => c.cveId)).toEqual(['CVE-0000-0006']);
    expect(built.match('cpe:/a:acme:widget:1.0').cves.map((c) => c.cveId)).toEqual(['CVE-0000-0004']);
  });

  it('keeps matchCriteriaIds only when asked', () => {
    const withIds = CpeMatcher.build(records, { keepMatchCriteriaIds: true });
    const [hit] = withIds.match('cpe:/a:apache:http_server:2.4.49').cves;
    expect(hit?.matches[0]?.matchCriteriaId).toMatch(/^[0-9A-F-]{36}$/i);
  });

  it('evaluates criteria with a wildcard vendor or product on every call', () => {
    const built = CpeMatcher.build([
      {
        cveId: 'CVE-0000-0005',
        configurations: [
          {
            nodes: [
              {
                operator: 'OR',
                cpeMatch: [{ criteria: 'cpe:2.3:a:*:widget*:*:*:*:*:*:*:*:*', vulnerable: true }],
              },
            ],
          },
        ],
      },
    ]);
    expect(built.match('cpe:/a:acme:widget_pro:2').cves).toHaveLength(1);
    expect(built.match('cpe:/a:acme:gadget:2').cves).toHaveLength(0);
  });
});

/** Versions around every bound and exact version the fixtures mention, plus odd shapes. */
function probeVersions(configurations: Configuration[]): string[] {
  const versions = new Set(['', '0', '1.0', 'r2', '-', '99']);
  for (const configuration of configurations) {
    for (const node of configuration.nodes) {
      for (const match of node.cpeMatch) {
        const parsed = parseCpe(match.criteria);
        const bounds = [
          match.versionStartIncluding,
          match.versionStartExcluding,
          match.versionEndIncluding,
          match.versionEndExcluding,
        ];
        if (parsed.ok && parsed.cpe.version !== '*') bounds.push(parsed.cpe.version);
        for (const bound of bounds) {
          if (!bound) continue;
          versions.add(bound);
          versions.add(`${bound}p1`);
          versions.add(`${bound}-rc1`);
          versions.add(bound.replace(/\d+$/, (n) => String(Math.max(0, Number(n) - 1))));
        }
      }
    }
  }
  return [...versions];
}

describe('the index agrees with evaluating every record', () => {
  it('for every product in the fixtures at versions around every bound', () => {
    const compiled = records.map((r) => ({
      cveId: r.cveId,
      configurations: compileConfigurations(r.configurations),
    }));
    const products = new Map<string, Configuration[]>();
    for (const record of records) {
      for (const configuration of record.configurations ?? []) {
        for (const node of configuration.nodes) {
          for (const match of node.cpeMatch) {
            const parsed = parseCpe(match.criteria);
            if (!parsed.ok) continue;
            const key = `${parsed.cpe.part}:${parsed.cpe.vendor}:${parsed.cpe.product}`;
            products.set(key, [...(products.get(key) ?? []), configuration]);
          }
        }
      }
    }
    const platforms = [
      [],
      ['cpe:/o:microsoft:windows_7::sp1', 'cpe:/h:citrix:gateway:-'],
      ['cpe:/o:debian:debian_linux:10.0'],
    ];
    let probes = 0;
    const mismatches: string[] = [];
    for (const [key, configurations] of products) {
      const [part, vendor, product] = key.split(':') as [string, string, string];
      for (const version of probeVersions(configurations)) {
        for (const platform of platforms) {
          const inputs = [`cpe:/${part}:${vendor}:${product}:${version.replace(/:/g, '%3a')}`, ...platform];
          const { target } = prepareTarget(inputs);
          const expected = compiled
            .filter((r) => evaluateConfigurations(r.configurations, target).vulnerable)
            .map((r) => r.cveId)
            .sort();
          const actual = ids(inputs);
          if (actual.join() !== expected.join())
            mismatches.push(`${inputs.join(' ')}: ${actual} vs ${expected}`);
          probes++;
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(probes).toBeGreaterThan(10_000);
  });
});

describe('scale', () => {
  // How fast the index answers, against a full evaluation, is measured by npm run bench:cpe.
  it('indexes 60,000 entries and matches as a full evaluation of every CVE does', () => {
    // 10,000 synthetic CVEs over 2,000 products, 60,000 entries.
    const synthetic = syntheticCves(10_000, 2000);
    const big = CpeMatcher.build(synthetic);
    expect(big.stats.entries).toBe(60_000);
    const service = (i: number) => syntheticService(i, 2000);
    let found = 0;
    for (let i = 0; i < 5000; i++) found += big.match(service(i)).cves.length;
    expect(found).toBeGreaterThan(0);
    // A sample, each service checked against every CVE's configurations without the index.
    const compiled = synthetic.map((r) => ({
      cveId: r.cveId as string,
      configurations: compileConfigurations(r.configurations),
    }));
    const mismatches: string[] = [];
    let sampleFound = 0;
    for (let i = 0; i < 5000; i += 500) {
      const { target } = prepareTarget(service(i));
      const expected = compiled
        .filter((r) => evaluateConfigurations(r.configurations, target).vulnerable)
        .map((r) => r.cveId)
        .sort();
      const actual = big
        .match(service(i))
        .cves.map((c) => c.cveId)
        .sort();
      sampleFound += expected.length;
      if (actual.join() !== expected.join())
        mismatches.push(`${JSON.stringify(service(i))}: ${actual} vs ${expected}`);
    }
    expect(mismatches).toEqual([]);
    expect(sampleFound).toBeGreaterThan(0);
  });
});
