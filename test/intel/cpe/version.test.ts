import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  joinVersionUpdate,
  numericPrefix,
  parseVersion,
  splitUpdateSuffix,
  versionsEqual,
} from '../../../src/intel/cpe/version.js';

const sign = (n: number) => Math.sign(n);

/** Each list is in ascending order; neighbours compare strictly. */
const ORDERED: Record<string, string[]> = {
  dotted: ['0.9', '1', '1.0.1', '1.2', '1.10', '2.4.48', '2.4.49', '2.4.50', '2.4.51', '10.0'],
  openssh: [
    '4.3p2',
    '4.4',
    '4.4p1',
    '8.4p1',
    '8.5',
    '8.5p1',
    '8.9',
    '8.9p1',
    '8.9p2',
    '8.10',
    '9.7p1',
    '9.8',
    '9.8p1',
  ],
  openssl: [
    '1.0.2',
    '1.0.2a',
    '1.0.2za',
    '1.1.0',
    '1.1.1',
    '1.1.1a',
    '1.1.1k',
    '1.1.1w',
    '1.1.2',
    '3.0.0',
    '3.0.7',
  ],
  proftpd: ['1.3.5rc1', '1.3.5', '1.3.5a', '1.3.5b', '1.3.5e', '1.3.6rc1', '1.3.6'],
  prerelease: [
    '7.0.0-dev',
    '7.0.0-alpha',
    '7.0.0-alpha.1',
    '7.0.0-beta',
    '7.0.0-beta2',
    '7.0.0-m1',
    '7.0.0-rc1',
    '7.0.0-rc2',
    '7.0.0',
    '7.0.0-1',
    '7.0.1',
  ],
  pep440: ['1.0.dev1', '1.0a1', '1.0a2', '1.0b1', '1.0rc1', '1.0', '1.0.post1', '1.1'],
  tomcat: ['9.0.0.M1', '9.0.0.M9', '9.0.0.M10', '9.0.0', '9.0.1', '9.0.98', '9.0.99', '10.1.0-M1', '10.1.0'],
  debian: ['2.3', '1:0.1', '1:2.2', '1:2.3~rc1', '1:2.3', '2:0.1'],
  dates: ['2021.01.05', '2021.1.6', '2021.10.1', '2022.1.1'],
};

describe('version ordering', () => {
  for (const [name, list] of Object.entries(ORDERED)) {
    it(`orders ${name} versions`, () => {
      for (let i = 0; i < list.length; i++) {
        for (let j = 0; j < list.length; j++) {
          // Property-like: every pair agrees with list order, so the order is total and antisymmetric.
          expect(sign(compareVersions(list[i]!, list[j]!)), `${list[i]} vs ${list[j]}`).toBe(sign(i - j));
        }
      }
    });

    it(`sorts shuffled ${name} versions back into order`, () => {
      const shuffled = [...list].reverse();
      shuffled.push(shuffled.shift()!);
      expect(shuffled.sort(compareVersions)).toEqual(list);
    });
  }

  it.each([
    ['2.4', '2.4.0'],
    ['2.4.0', '2.4.0.0'],
    ['v1.2.3', '1.2.3'],
    ['V1.2.3', '1.2.3'],
    ['1.0.0+build.5', '1.0.0'],
    ['1.0.0+20130313144700', '1.0.0+exp.sha.5114f85'],
    ['7.0.0-rc1', '7.0.0rc1'],
    ['7.0.0-rc1', '7.0.0.rc.1'],
    ['1.0-RC1', '1.0-rc1'],
    ['9.0.0.M1', '9.0.0milestone1'],
    ['1.0a1', '1.0alpha1'],
    ['5.2.20.RELEASE', '5.2.20'],
    ['13.2-RELEASE-p5', '13.2p5'],
    ['0:1.2', '1.2'],
    ['  2.4.49 ', '2.4.49'],
    ['1.0-final', '1.0'],
    ['7.0.0-dev', '7.0.0-SNAPSHOT'],
  ])('%j == %j', (a, b) => {
    expect(compareVersions(a, b)).toBe(0);
    expect(compareVersions(b, a)).toBe(0);
    expect(versionsEqual(a, b)).toBe(true);
  });

  it('can treat + as part of the version (dpkg, rpm)', () => {
    expect(compareVersions('1.1.1n-0+deb11u3', '1.1.1n-0+deb11u4')).toBe(0);
    expect(compareVersions('1.1.1n-0+deb11u3', '1.1.1n-0+deb11u4', { plusIsBuild: false })).toBeLessThan(0);
    expect(compareVersions('2.4+dfsg', '2.4', { plusIsBuild: false })).toBeGreaterThan(0);
  });

  it('orders a Debian epoch above any version without one', () => {
    expect(compareVersions('1:1.0', '9.9')).toBeGreaterThan(0);
  });

  it('orders text versions naturally and puts nothing before empty', () => {
    expect(compareVersions('r2', 'r10')).toBeLessThan(0);
    expect(compareVersions('R2', 'r2')).toBe(0);
    expect(compareVersions('', '1.0')).toBeLessThan(0);
    expect(compareVersions('', '')).toBe(0);
  });

  it('never throws on odd input', () => {
    const odd = [
      '',
      ' ',
      '-',
      '*',
      '...',
      'v',
      '1..2',
      '1.-2',
      '☃',
      '1.0\u0000',
      '99999999999999999999',
      'NaN',
    ];
    for (const a of odd) {
      for (const b of odd) expect(Number.isFinite(compareVersions(a, b))).toBe(true);
    }
    expect(Number.isFinite(compareVersions(undefined as unknown as string, '1'))).toBe(true);
  });
});

describe('parseVersion', () => {
  it('returns null for empty or non-string input', () => {
    expect(parseVersion('')).toBeNull();
    expect(parseVersion('   ')).toBeNull();
    expect(parseVersion(null as unknown as string)).toBeNull();
  });

  it('marks versions that do not start with a digit as text', () => {
    expect(parseVersion('r2')?.lexical).toBe(true);
    expect(parseVersion('latest')?.lexical).toBe(true);
    expect(parseVersion('v8r13')?.lexical).toBe(false);
  });

  it('reads the OpenSSL letter as a release after, and the PEP 440 letter+number as before', () => {
    expect(parseVersion('1.1.1k')?.items).toEqual([1, 1, 1, { rank: 6, word: 'k' }]);
    expect(parseVersion('1.0a1')?.items).toEqual([1, 0, { rank: 1, word: 'a' }, 1]);
  });
});

describe('CPE version and update', () => {
  it('joins an update onto its version', () => {
    expect(joinVersionUpdate('8.5', 'p1')).toBe('8.5p1');
    expect(joinVersionUpdate('1.1.1', 'k')).toBe('1.1.1k');
    expect(joinVersionUpdate('v8r13', '14398')).toBe('v8r13-14398');
    expect(joinVersionUpdate('8.5', '')).toBe('8.5');
    expect(compareVersions(joinVersionUpdate('9.0.0', 'milestone1'), '9.0.0.M1')).toBe(0);
  });

  it('splits update markers with a number, not bare letters', () => {
    expect(splitUpdateSuffix('8.5p1')).toEqual({ version: '8.5', update: 'p1' });
    expect(splitUpdateSuffix('3.0.0-rc1')).toEqual({ version: '3.0.0', update: 'rc1' });
    expect(splitUpdateSuffix('9.0.0.M1')).toEqual({ version: '9.0.0', update: 'm1' });
    expect(splitUpdateSuffix('1.1.1k')).toBeNull();
    expect(splitUpdateSuffix('2.4.49')).toBeNull();
  });

  it('finds the dotted numeric start', () => {
    expect(numericPrefix('8.5p1')).toBe('8.5');
    expect(numericPrefix('v9.0.0.M1')).toBe('9.0.0');
    expect(numericPrefix('2.4.49')).toBeNull();
    expect(numericPrefix('latest')).toBeNull();
  });
});
