import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cvss3BaseScore } from '../../../src/importers/common/cvss-score.js';
import { cvssSeverity, scoreCvss } from '../../../src/intel/cvss/cvss.js';

const INTEL = join(import.meta.dirname, '..', '..', 'fixtures', 'intel');
const library = createRequire(import.meta.url)('ae-cvss-calculator') as typeof import('ae-cvss-calculator');

function json(...path: string[]): Record<string, unknown> {
  return JSON.parse(readFileSync(join(INTEL, ...path), 'utf8')) as Record<string, unknown>;
}

interface Stated {
  where: string;
  vector: string;
  score?: number;
}

type Obj = Record<string, unknown>;

/** Every CVSS vector the NVD, CVE 5 and OSV fixtures state, with the score where they state one. */
function statedMetrics(): Stated[] {
  const out: Stated[] = [];
  for (const file of readdirSync(join(INTEL, 'nvd'))) {
    const metrics = (json('nvd', file).metrics ?? {}) as Record<string, Obj[]>;
    for (const [kind, list] of Object.entries(metrics))
      for (const m of list) {
        const data = m.cvssData as Obj | undefined;
        if (data)
          out.push({
            where: `nvd/${file} ${kind}`,
            vector: data.vectorString as string,
            score: data.baseScore as number,
          });
      }
  }
  for (const file of readdirSync(join(INTEL, 'cve5'))) {
    const containers = json('cve5', file).containers as { cna: Obj; adp?: Obj[] };
    for (const container of [containers.cna, ...(containers.adp ?? [])])
      for (const m of (container.metrics ?? []) as Obj[])
        for (const key of ['cvssV4_0', 'cvssV3_1', 'cvssV3_0', 'cvssV2_0']) {
          const data = m[key] as Obj | undefined;
          if (data)
            out.push({
              where: `cve5/${file} ${key}`,
              vector: data.vectorString as string,
              score: data.baseScore as number,
            });
        }
  }
  for (const file of readdirSync(join(INTEL, 'osv')).filter((f) => f.endsWith('.json')))
    for (const s of (json('osv', file).severity ?? []) as Obj[])
      out.push({ where: `osv/${file} ${s.type}`, vector: s.score as string });
  return out;
}

/** The library's own base score, called directly with the class the prefix names. */
function libraryScore(vector: string): number | undefined {
  if (vector.startsWith('CVSS:4.0/')) return new library.Cvss4P0(vector).calculateScores().baseMetricsOnly;
  if (vector.startsWith('CVSS:3.1/')) return new library.Cvss3P1(vector).calculateScores().base;
  if (vector.startsWith('CVSS:3.0/')) return new library.Cvss3P0(vector).calculateScores().base;
  return new library.Cvss2(vector).calculateScores().base;
}

describe('scoreCvss on the vectors of the real records', () => {
  it('scores every CVSS metric of the NVD, CVE 5 and OSV fixtures exactly as stated (no mismatch)', () => {
    const stated = statedMetrics();
    expect(stated.filter((s) => s.where.startsWith('nvd/'))).toHaveLength(83);
    expect(stated.filter((s) => s.where.startsWith('osv/'))).toHaveLength(14);
    const mismatches: string[] = [];
    const known = new Map<string, number>();
    for (const s of stated) {
      const scored = scoreCvss(s.vector);
      if (!scored.ok) {
        mismatches.push(`${s.where}: ${s.vector} refused: ${scored.error}`);
        continue;
      }
      if (s.score !== undefined && scored.baseScore !== s.score)
        mismatches.push(`${s.where}: ${s.vector} states ${s.score}, scored ${scored.baseScore}`);
      if (scored.baseScore !== libraryScore(s.vector))
        mismatches.push(`${s.where}: ${s.vector} differs from the library`);
      if (s.score !== undefined) known.set(s.vector, s.score);
    }
    // OSV states no score: where NVD or a CNA scored the same vector, the scores agree.
    for (const s of stated.filter((x) => x.score === undefined && known.has(x.vector))) {
      const scored = scoreCvss(s.vector);
      if (scored.ok && scored.baseScore !== known.get(s.vector))
        mismatches.push(`${s.where}: ${s.vector} vs NVD`);
    }
    expect(mismatches).toEqual([]);
  });

  it('scores the records’ known vectors', () => {
    const cases: [string, string, number, string][] = [
      ['CVE-2024-6387', 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H', 8.1, 'High'],
      ['CVE-2021-44906', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'Critical'],
      ['CVE-2019-9193 (v3.0)', 'CVSS:3.0/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', 7.2, 'High'],
      ['CVE-2015-3306 (ADP)', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10, 'Critical'],
      ['GHSA-c2qf-rxjj-qqgw', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L', 5.3, 'Medium'],
      ['CVE-2004-2687 (v2)', 'AV:N/AC:M/Au:N/C:C/I:C/A:C', 9.3, 'High'],
      ['CVE-2019-9193 (v2)', 'AV:N/AC:L/Au:S/C:C/I:C/A:C', 9, 'High'],
    ];
    for (const [where, vector, baseScore, severity] of cases)
      expect(scoreCvss(vector), where).toMatchObject({ ok: true, baseScore, severity });
  });
});

describe('scoreCvss on CVSS v4.0', () => {
  it('gives the scores of FIRST’s calculator', () => {
    const cases: [string, number][] = [
      ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H', 10],
      ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 9.3],
      ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:H/SI:H/SA:H', 7.9],
      ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:L/VA:L/SC:N/SI:N/SA:N', 6.9],
      ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N', 0],
    ];
    for (const [vector, baseScore] of cases)
      expect(scoreCvss(vector), vector).toMatchObject({ ok: true, version: '4.0', baseScore });
  });

  it('keeps the base score (CVSS-B) apart from the threat and environmental score', () => {
    const threat = scoreCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H/E:U');
    expect(threat).toMatchObject({ ok: true, baseScore: 10, overallScore: 9.1, severity: 'Critical' });
    const environmental = scoreCvss(
      'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H/MVI:L/MSA:S',
    );
    expect(environmental).toMatchObject({ ok: true, baseScore: 10, overallScore: 9.8 });
    expect(scoreCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N')).toMatchObject({
      severity: 'None',
    });
  });

  it('names the v4.0 metrics apart (VC and SC are both "Confidentiality" in the library)', () => {
    const scored = scoreCvss('CVSS:4.0/AV:A/AC:H/AT:P/PR:L/UI:A/VC:L/VI:N/VA:H/SC:N/SI:L/SA:H');
    expect(scored.ok && scored.metrics.map((m) => `${m.key}=${m.name}:${m.label}`)).toEqual([
      'AV=Attack Vector:Adjacent Network',
      'AC=Attack Complexity:High',
      'AT=Attack Requirements:Present',
      'PR=Privileges Required:Low',
      'UI=User Interaction:Active',
      'VC=Vulnerable System Confidentiality Impact:Low',
      'VI=Vulnerable System Integrity Impact:None',
      'VA=Vulnerable System Availability Impact:High',
      'SC=Subsequent System Confidentiality Impact:None',
      'SI=Subsequent System Integrity Impact:Low',
      'SA=Subsequent System Availability Impact:High',
    ]);
  });
});

describe('scoreCvss results', () => {
  it('lists the base metrics in the specification’s order with names and labels', () => {
    expect(scoreCvss('CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H')).toEqual({
      ok: true,
      version: '3.1',
      vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
      baseScore: 8.1,
      severity: 'High',
      metrics: [
        { key: 'AV', name: 'Attack Vector', value: 'N', label: 'Network' },
        { key: 'AC', name: 'Attack Complexity', value: 'H', label: 'High' },
        { key: 'PR', name: 'Privileges Required', value: 'N', label: 'None' },
        { key: 'UI', name: 'User Interaction', value: 'N', label: 'None' },
        { key: 'S', name: 'Scope', value: 'U', label: 'Unchanged' },
        { key: 'C', name: 'Confidentiality Impact', value: 'H', label: 'High' },
        { key: 'I', name: 'Integrity Impact', value: 'H', label: 'High' },
        { key: 'A', name: 'Availability Impact', value: 'H', label: 'High' },
      ],
    });
    const v2 = scoreCvss('AV:N/AC:L/Au:N/C:P/I:P/A:P');
    expect(v2.ok && v2.metrics.map((m) => m.name)).toEqual([
      'Access Vector',
      'Access Complexity',
      'Authentication',
      'Confidentiality Impact',
      'Integrity Impact',
      'Availability Impact',
    ]);
  });

  it('normalises: specification order, "Not Defined" left out, v2 without parentheses or prefix', () => {
    expect(scoreCvss('CVSS:3.1/A:H/I:H/C:H/S:U/UI:N/PR:N/AC:H/AV:N/E:X/RL:O')).toMatchObject({
      vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H/RL:O',
      baseScore: 8.1,
      overallScore: 7.7,
    });
    expect(scoreCvss('(AV:N/AC:L/Au:N/C:P/I:P/A:P)')).toMatchObject({
      version: '2.0',
      vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      baseScore: 7.5,
    });
    expect(scoreCvss('CVSS:2.0/AV:N/AC:L/Au:N/C:P/I:P/A:P/E:ND')).toMatchObject({
      vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
    });
    expect(scoreCvss('  CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H  ')).toMatchObject({
      version: '3.0',
      baseScore: 9.8,
    });
  });

  it('scores v3 without its prefix only with a version to assume', () => {
    const bare = 'AV:N/AC:L/PR:N/UI:N/S:C/C:L/I:L/A:N';
    expect(scoreCvss(bare)).toEqual({
      ok: false,
      error: expect.stringMatching(/no "CVSS:<version>\/" prefix/),
    });
    expect(scoreCvss(bare, { assumeVersion: '3.1' })).toMatchObject({
      version: '3.1',
      vector: `CVSS:3.1/${bare}`,
      baseScore: 7.2,
    });
    expect(scoreCvss(bare, { assumeVersion: '3.0' })).toMatchObject({
      version: '3.0',
      vector: `CVSS:3.0/${bare}`,
    });
  });

  it('rates by each version’s bands (v2: Low / Medium / High only)', () => {
    expect(['2.0', '3.0', '3.1', '4.0'].map((v) => cvssSeverity(0, v as '2.0'))).toEqual([
      'Low',
      'None',
      'None',
      'None',
    ]);
    expect([0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map((s) => cvssSeverity(s, '3.1'))).toEqual([
      'Low',
      'Low',
      'Medium',
      'Medium',
      'High',
      'High',
      'Critical',
      'Critical',
    ]);
    expect([3.9, 4, 6.9, 7, 10].map((s) => cvssSeverity(s, '2.0'))).toEqual([
      'Low',
      'Medium',
      'Medium',
      'High',
      'High',
    ]);
    expect(scoreCvss('AV:N/AC:L/Au:N/C:C/I:C/A:C')).toMatchObject({ baseScore: 10, severity: 'High' });
  });
});

describe('scoreCvss refuses vectors that are not valid, saying why', () => {
  const V31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
  const cases: [string, string, RegExp][] = [
    ['unknown metric', `${V31}/ZZ:1`, /^Unknown metric "ZZ" in a CVSS v3\.1 vector\.$/],
    ['unknown metric (v2 metric in v3)', `${V31}/Au:N`, /^Unknown metric "Au"/],
    [
      'missing metric',
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H',
      /misses the mandatory metric A \(Availability Impact\)\.$/,
    ],
    [
      'missing metrics',
      'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H',
      /misses the mandatory metrics SC .*, SI .*, SA /,
    ],
    ['duplicate metric', `${V31}/AV:L`, /^The metric AV \(Attack Vector\) is given twice\.$/],
    [
      'wrong value',
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:Q',
      /^"Q" is not a value of A \(Availability Impact\) in CVSS v3\.1; expected one of N, L, H\.$/,
    ],
    ['Not Defined base metric', 'CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /"X" is not a value of AV/],
    [
      'v2 ND base metric',
      'AV:ND/AC:L/Au:N/C:P/I:P/A:P',
      /"ND" is not a value of AV \(Access Vector\) in CVSS v2\.0/,
    ],
    [
      'Safety in a v4.0 base metric',
      'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:S/SA:N',
      /"S" is not a value of SI \(Subsequent System Integrity Impact\)/,
    ],
    ['lower case value', 'CVSS:3.1/AV:n/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /"n" is not a value of AV/],
    ['unknown version', 'CVSS:3.2/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /^Unknown CVSS version "3\.2"/],
    [
      'wrong prefix',
      'CVSS3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      /^The prefix "CVSS3\.1" is not of the form "CVSS:<version>\/"/,
    ],
    ['lower case prefix', 'cvss:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /^The prefix "cvss:3\.1"/],
    [
      'v3 without prefix',
      'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      /no "CVSS:<version>\/" prefix and is not CVSS v2/,
    ],
    ['trailing slash', `${V31}/`, /empty part/],
    ['not a pair', 'CVSS:3.1/AV:N/AC', /^"AC" is not a metric:value pair\.$/],
    ['empty', '   ', /^The vector is empty\.$/],
    ['words', 'N/A', /is not a metric:value pair|no "CVSS/],
  ];
  for (const [what, vector, error] of cases)
    it(what, () => {
      const scored = scoreCvss(vector);
      expect(scored.ok).toBe(false);
      expect(!scored.ok && scored.error).toMatch(error);
    });

  it('refuses what is not a string at all', () => {
    expect(scoreCvss(undefined as unknown as string)).toEqual({ ok: false, error: 'The vector is empty.' });
  });
});

describe('scoreCvss agrees with the library everywhere', () => {
  function* combinations(metrics: [string, string[]][], prefix = ''): Generator<string> {
    const [first, ...rest] = metrics;
    if (!first) {
      yield prefix;
      return;
    }
    for (const value of first[1])
      yield* combinations(rest, `${prefix}${prefix === '' ? '' : '/'}${first[0]}:${value}`);
  }

  it('on every v3.0 and v3.1 base vector (2,592 each) and every v2 base vector (729)', () => {
    const v3: [string, string[]][] = [
      ['AV', ['N', 'A', 'L', 'P']],
      ['AC', ['L', 'H']],
      ['PR', ['N', 'L', 'H']],
      ['UI', ['N', 'R']],
      ['S', ['U', 'C']],
      ['C', ['N', 'L', 'H']],
      ['I', ['N', 'L', 'H']],
      ['A', ['N', 'L', 'H']],
    ];
    const v2: [string, string[]][] = [
      ['AV', ['L', 'A', 'N']],
      ['AC', ['H', 'M', 'L']],
      ['Au', ['M', 'S', 'N']],
      ['C', ['N', 'P', 'C']],
      ['I', ['N', 'P', 'C']],
      ['A', ['N', 'P', 'C']],
    ];
    let checked = 0;
    const differ: string[] = [];
    const vectors = [
      ...[...combinations(v3)].flatMap((body) => [`CVSS:3.0/${body}`, `CVSS:3.1/${body}`]),
      ...combinations(v2),
    ];
    for (const vector of vectors) {
      const scored = scoreCvss(vector);
      checked += 1;
      if (!scored.ok || scored.baseScore !== libraryScore(vector)) differ.push(vector);
    }
    expect(checked).toBe(2 * 2592 + 729);
    expect(differ).toEqual([]);
  });

  it('through the importers’ cvss3BaseScore, which delegates to it', () => {
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H')).toBe(8.1);
    expect(cvss3BaseScore('CVSS:3.0/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H')).toBe(7.2);
    expect(cvss3BaseScore('AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toBe(9.8);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P')).toBe(9.8);
    expect(cvss3BaseScore('AV:N/AC:L/Au:N/C:P/I:P/A:P')).toBeUndefined();
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/ZZ:Q')).toBeUndefined();
    expect(cvss3BaseScore(undefined)).toBeUndefined();
  });
});
