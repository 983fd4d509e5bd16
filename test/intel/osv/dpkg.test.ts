import { describe, expect, it } from 'vitest';
import { compareDpkgVersions, isDpkgVersion, parseDpkgVersion } from '../../../src/intel/osv/dpkg.js';

/** Each pair is strictly ascending: a < b, so b > a. */
const ASCENDING: Array<[string, string]> = [
  // Debian policy §5.6.12: `~~ < ~~a < ~ < (end) < a`
  ['1.0~~', '1.0~~a'],
  ['1.0~~a', '1.0~'],
  ['1.0~', '1.0'],
  ['1.0', '1.0a'],
  ['1.0~rc1', '1.0'],
  ['1.0~rc1', '1.0~rc2'],
  ['1.0~beta', '1.0~rc1'],
  // epochs beat everything after them
  ['2.0', '1:0.1'],
  ['1:9.9', '2:0.1'],
  ['4:4.0.2-9', '5:4.0.5-1'],
  // digits numerically, letters before non-letters
  ['1.2', '1.10'],
  ['1.0a', '1.0+'],
  ['1.0a', '1.0.'],
  ['1.0', '1.0.1'],
  ['1.0z', '1.0.0'],
  ['1.0A', '1.0a'],
  // revisions
  ['1.0-1', '1.0-1ubuntu0.1'],
  ['1.0-1', '1.0-2'],
  ['1.0-9', '1.0-10'],
  ['1.0', '1.0-1'],
  ['1:8.9p1-3ubuntu0.6', '1:8.9p1-3ubuntu0.10'],
  ['1:8.9p1-3', '1:8.9p1-3ubuntu0.1'],
  ['1:8.9p1-3ubuntu0.10', '1:8.9p1-3ubuntu0.13'],
  ['2.4.52-1ubuntu4.4', '2.4.52-1ubuntu4.10'],
  ['1:9.6p1-3ubuntu1', '1:9.6p1-3ubuntu13'],
  ['1:9.6p1-3ubuntu13', '1:9.6p1-3ubuntu13.3'],
  // backports (`~`) sort before the release they backport, `+esmN` after the base
  ['1.1.1-1ubuntu2.1~18.04.15', '1.1.1-1ubuntu2.1'],
  ['1.1.1-1ubuntu2.1~18.04.15', '1.1.1-1ubuntu2.1~18.04.20'],
  ['12.22.9~dfsg-1ubuntu3.1', '12.22.9-1'],
  ['1:7.2p2-4ubuntu2.10', '1:7.2p2-4ubuntu2.10+esm2'],
  ['1:7.2p2-4ubuntu2.10+esm2', '1:7.2p2-4ubuntu2.10+esm10'],
  ['5:5.0.7-2ubuntu0.1', '5:5.0.7-2ubuntu0.1+esm2'],
  ['0.9.6-2ubuntu0.22.04.1', '0.9.6-2ubuntu0.22.04.2'],
  ['1.1.1n-0+deb11u3', '1.1.1n-0+deb11u4'],
  // the last hyphen splits: upstream may hold hyphens
  ['1.0-beta-1', '1.0-beta-2'],
  ['1.0-beta-1', '1.0.1-1'],
  // leading zeros are ignored in digit runs
  ['1.09', '1.10'],
];

const EQUAL: Array<[string, string]> = [
  ['0:1.0', '1.0'],
  ['1.0', '1.0-0'],
  ['1.001', '1.1'],
  ['00:1.0-1', '1.0-1'],
  [' 1:8.9p1-3ubuntu0.10 ', '1:8.9p1-3ubuntu0.10'],
];

describe('compareDpkgVersions', () => {
  it.each(ASCENDING)('%s < %s', (a, b) => {
    expect(compareDpkgVersions(a, b)).toBe(-1);
    expect(compareDpkgVersions(b, a)).toBe(1);
  });

  it.each(EQUAL)('%s == %s', (a, b) => {
    expect(compareDpkgVersions(a, b)).toBe(0);
    expect(compareDpkgVersions(b, a)).toBe(0);
  });

  it('sorts a list into the order dpkg gives', () => {
    const sorted = ['1.0', '1.0~rc1', '1:0.1', '1.0-1', '1.0~~', '1.0a', '1.0+dfsg', '0.9'].sort(
      compareDpkgVersions,
    );
    expect(sorted).toEqual(['0.9', '1.0~~', '1.0~rc1', '1.0', '1.0-1', '1.0a', '1.0+dfsg', '1:0.1']);
  });

  it('refuses to compare an invalid version', () => {
    expect(() => compareDpkgVersions('1.0', 'a:1.0')).toThrow(/epoch/);
  });
});

describe('parseDpkgVersion', () => {
  it('splits epoch, upstream and revision (first colon, last hyphen)', () => {
    expect(parseDpkgVersion('1:8.9p1-3ubuntu0.10')).toEqual({
      epoch: 1,
      upstream: '8.9p1',
      revision: '3ubuntu0.10',
    });
    expect(parseDpkgVersion('2.4.52')).toEqual({ epoch: 0, upstream: '2.4.52', revision: '' });
    expect(parseDpkgVersion('1:2.0-rc-1')).toEqual({ epoch: 1, upstream: '2.0-rc', revision: '1' });
    expect(parseDpkgVersion('1:2:3-1')).toEqual({ epoch: 1, upstream: '2:3', revision: '1' });
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    [':1.0', /epoch is empty/],
    ['a:1.0', /epoch is not a non-negative number/],
    ['-1:1.0', /epoch is not a non-negative number/],
    ['99999999999:1.0', /epoch is too big/],
    ['1:', /nothing after the epoch colon/],
    ['1.0-', /revision is empty/],
    ['-1', /upstream version is empty/],
    ['a1.0', /does not start with a digit/],
    ['1.0 beta', /embedded spaces/],
    ['1.0_1', /invalid character in upstream/],
    ['1.0!-1', /invalid character in upstream/],
    ['1.0-1_2', /invalid character in revision/],
    ['1.0-1!', /invalid character in revision/],
    ['1.0-1:2', /epoch is not a non-negative number/],
  ])('refuses %j', (version, message) => {
    expect(() => parseDpkgVersion(version)).toThrow(message);
    expect(isDpkgVersion(version)).toBe(false);
  });

  it('names the version in the error', () => {
    expect(() => parseDpkgVersion('x:1')).toThrow(
      'invalid dpkg version "x:1": epoch is not a non-negative number',
    );
  });
});
