import { describe, expect, it } from 'vitest';
import {
  ANY,
  attributeMatches,
  type Cpe,
  compareAttribute,
  cpeMatches,
  formatCpe,
  hasWildcard,
  literalText,
  makeCpe,
  NA,
  parseCpe,
  parseCpe23,
  parseCpeUri,
  toCpeValue,
} from '../../../src/intel/cpe/cpe.js';
import { allNvd } from './records.js';

function parsed(text: string): Cpe {
  const result = parseCpe(text);
  if (!result.ok) throw new Error(`expected ${text} to parse: ${result.error}`);
  return result.cpe;
}

function parseError(text: unknown): string {
  const result = parseCpe(text);
  if (result.ok) throw new Error(`expected ${String(text)} to be rejected`);
  return result.error;
}

describe('CPE 2.3 formatted string binding', () => {
  it('reads all eleven attributes, keeping ANY and NA apart', () => {
    expect(parsed('cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*')).toEqual({
      part: 'a',
      vendor: 'openbsd',
      product: 'openssh',
      version: '8.5',
      update: 'p1',
      edition: ANY,
      language: ANY,
      swEdition: ANY,
      targetSw: ANY,
      targetHw: ANY,
      other: ANY,
    });
    const nodeLts = parsed('cpe:2.3:a:nodejs:node.js:18.12.0:*:*:*:lts:*:*:*');
    expect(nodeLts.swEdition).toBe('lts');
    const na = parsed('cpe:2.3:a:openbsd:openssh:4.4:-:*:*:*:*:*:*');
    expect(na.update).toBe(NA);
    expect(na.update).not.toBe(ANY);
  });

  it('unescapes quoted punctuation, keeping the wildcard characters escaped', () => {
    const cpe = parsed('cpe:2.3:a:gnu:g\\+\\+:4\\.8:*:*:*:*:*:*:*');
    expect(cpe.product).toBe('g++');
    expect(cpe.version).toBe('4.8');
    expect(parsed('cpe:2.3:a:cisco:ios:12.2\\(33\\)sxi:*:*:*:*:*:*:*').version).toBe('12.2(33)sxi');
    expect(parsed('cpe:2.3:a:vendor:prod\\:uct:1.0:*:*:*:*:*:*:*').product).toBe('prod:uct');
    const star = parsed('cpe:2.3:a:vendor:a\\*b:1.0:*:*:*:*:*:*:*');
    expect(star.product).toBe('a\\*b');
    expect(hasWildcard(star.product)).toBe(false);
    expect(literalText(star.product)).toBe('a*b');
    expect(parsed('cpe:2.3:a:vendor:product:\\-:*:*:*:*:*:*:*').version).toBe('\\-');
  });

  it('lowercases, as matching is case-insensitive', () => {
    expect(parsed('CPE:2.3:A:OpenBSD:OpenSSH:8.5:P1:*:*:*:*:*:*').vendor).toBe('openbsd');
  });

  it('accepts leading and trailing wildcards inside values', () => {
    expect(parsed('cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*').version).toBe('2.4.*');
    expect(parsed('cpe:2.3:a:apache:http_server:*2.4:*:*:*:*:*:*:*').version).toBe('*2.4');
    expect(parsed('cpe:2.3:a:apache:http_server:2.4.??:*:*:*:*:*:*:*').version).toBe('2.4.??');
  });

  it('round-trips every criteria string of the NVD fixtures', () => {
    let count = 0;
    for (const record of allNvd()) {
      for (const configuration of record.configurations ?? []) {
        for (const node of configuration.nodes) {
          for (const match of node.cpeMatch) {
            expect(formatCpe(parsed(match.criteria))).toBe(match.criteria);
            count++;
          }
        }
      }
    }
    expect(count).toBeGreaterThan(500);
  });

  it('formats escapes back', () => {
    expect(formatCpe(parsed('cpe:2.3:a:gnu:g\\+\\+:4.8:*:*:*:*:*:*:*'))).toBe(
      'cpe:2.3:a:gnu:g\\+\\+:4.8:*:*:*:*:*:*:*',
    );
    expect(formatCpe(parsed('cpe:2.3:a:v:a\\*b:\\-:*:*:*:*:*:*:*'))).toBe(
      'cpe:2.3:a:v:a\\*b:\\-:*:*:*:*:*:*:*',
    );
    expect(formatCpe(parsed('cpe:/a:vendor:prod%3auct:1.0'))).toBe(
      'cpe:2.3:a:vendor:prod\\:uct:1.0:*:*:*:*:*:*:*',
    );
  });
});

describe('CPE URI binding', () => {
  it('reads names as nmap emits them, missing attributes being ANY', () => {
    const ssh = parsed('cpe:/a:openbsd:openssh:8.9p1');
    expect(ssh).toMatchObject({
      part: 'a',
      vendor: 'openbsd',
      product: 'openssh',
      version: '8.9p1',
      update: ANY,
    });
    expect(formatCpe(ssh)).toBe('cpe:2.3:a:openbsd:openssh:8.9p1:*:*:*:*:*:*:*');
    expect(formatCpe(parsed('cpe:/o:linux:linux_kernel:5.4'))).toBe(
      'cpe:2.3:o:linux:linux_kernel:5.4:*:*:*:*:*:*:*',
    );
    expect(parsed('cpe:/o:linux:linux_kernel').version).toBe(ANY);
  });

  it('reads empty components as ANY and - as NA', () => {
    const windows = parsed('cpe:/o:microsoft:windows_7::sp1');
    expect(windows.version).toBe(ANY);
    expect(windows.update).toBe('sp1');
    expect(parsed('cpe:/o:microsoft:windows_10:-').version).toBe(NA);
  });

  it('decodes percent-encoding, %01 and %02 being the wildcards', () => {
    expect(parsed('cpe:/a:foo%21bar:baz').vendor).toBe('foo!bar');
    expect(parsed('cpe:/a:vendor:product:1.%02').version).toBe('1.*');
    expect(parsed('cpe:/a:vendor:product:1.%01').version).toBe('1.?');
    expect(parsed('cpe:/a:vendor:product:a%2ab').version).toBe('a\\*b');
  });

  it('unpacks the ~ edition into the extended attributes', () => {
    const cpe = parsed('cpe:/a:hp:insight_diagnostics:7.4.0.1570:-:~~online~win2003~x64~:en-us');
    expect(cpe).toMatchObject({
      version: '7.4.0.1570',
      update: NA,
      edition: ANY,
      swEdition: 'online',
      targetSw: 'win2003',
      targetHw: 'x64',
      other: ANY,
      language: 'en-us',
    });
    expect(formatCpe(cpe)).toBe('cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:en-us:online:win2003:x64:*');
    expect(parsed('cpe:/a:vendor:product:1.0::~-~pro~~~').edition).toBe(NA);
    expect(parsed('cpe:/a:vendor:product:1.0::pro').edition).toBe('pro');
  });
});

describe('invalid names give an error, never an exception', () => {
  it.each([
    ['', 'not a CPE name'],
    ['openssh 8.9p1', 'not a CPE name'],
    ['cpe:2.3:a:openbsd:openssh:8.5', 'must have 11 attributes'],
    ['cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*:*', 'must have 11 attributes'],
    ['cpe:2.3:x:openbsd:openssh:8.5:*:*:*:*:*:*:*', 'part must be'],
    ['cpe:2.3:a::openssh:8.5:*:*:*:*:*:*:*', 'vendor: empty value'],
    ['cpe:2.3:a:open bsd:openssh:8.5:*:*:*:*:*:*:*', 'whitespace'],
    ['cpe:2.3:a:openbsd:open*ssh:8.5:*:*:*:*:*:*:*', 'unescaped *'],
    ['cpe:2.3:a:openbsd:openssh:8.5:**:*:*:*:*:*:*', 'doubled *'],
    ['cpe:2.3:a:openbsd:open?ssh:8.5:*:*:*:*:*:*:*', 'unescaped ?'],
    ['cpe:2.3:a:openbsd:openssh:8.5:*:*:*:*:*:*:\\', 'lone backslash'],
    ['cpe:/a:openbsd:openssh:8.5:p1:ed:en:extra', 'at most 7'],
    ['cpe:/a:vendor:product:1.0%zz', 'bad percent-encoding'],
    ['cpe:/a:vendor:product:1.0:-:~online~win', 'packed edition'],
    ['cpe:/x:vendor:product', 'part must be'],
  ])('%j', (text, message) => {
    expect(parseError(text)).toContain(message);
  });

  it('rejects non-strings', () => {
    for (const value of [undefined, null, 42, {}, ['cpe:/a:x:y']]) {
      expect(parseError(value)).toContain('must be a string');
    }
  });

  it('keeps each binding to its own parser', () => {
    expect(parseCpe23('cpe:/a:x:y').ok).toBe(false);
    expect(parseCpeUri('cpe:2.3:a:x:y:*:*:*:*:*:*:*:*').ok).toBe(false);
  });
});

describe('attribute comparison (NISTIR 7696)', () => {
  it.each([
    [ANY, ANY, 'equal'],
    [ANY, NA, 'superset'],
    [ANY, 'openssh', 'superset'],
    [NA, ANY, 'subset'],
    [NA, NA, 'equal'],
    [NA, 'p1', 'disjoint'],
    ['p1', ANY, 'subset'],
    ['p1', NA, 'disjoint'],
    ['p1', 'p1', 'equal'],
    ['p1', 'p2', 'disjoint'],
    ['2.4.*', '2.4.49', 'superset'],
    ['2.4.*', '2.5.0', 'disjoint'],
    ['2.4.?', '2.4.9', 'superset'],
    ['2.4.?', '2.4.49', 'disjoint'],
    ['p1', '2.4.*', 'undefined'],
  ])('source %j, target %j: %s', (source, target, relation) => {
    expect(compareAttribute(source, target)).toBe(relation);
  });

  it('accepts: ANY anything, NA only NA or ANY, literals equal, wildcards by pattern', () => {
    expect(attributeMatches(ANY, 'x')).toBe(true);
    expect(attributeMatches(NA, NA)).toBe(true);
    expect(attributeMatches(NA, ANY)).toBe(true);
    expect(attributeMatches(NA, 'p1')).toBe(false);
    expect(attributeMatches('p1', NA)).toBe(false);
    expect(attributeMatches('p1', ANY)).toBe(true);
    expect(attributeMatches('node.js', 'node.js')).toBe(true);
    expect(attributeMatches('node.js', 'node_js')).toBe(false);
    expect(attributeMatches('windows_*', 'windows_10')).toBe(true);
    expect(attributeMatches('*_firmware', 'acuson_p300_firmware')).toBe(true);
    expect(attributeMatches('a\\*b', 'a\\*b')).toBe(true);
    expect(attributeMatches('a\\*b', 'axxb')).toBe(false);
  });

  it('compares case-insensitively through parsing', () => {
    const criteria = parsed('cpe:2.3:a:OpenBSD:OpenSSH:*:*:*:*:*:*:*:*');
    expect(cpeMatches(criteria, parsed('cpe:/a:openbsd:openssh:8.9p1'))).toBe(true);
    expect(cpeMatches(criteria, parsed('cpe:/a:openbsd:openssl:3.0.0'))).toBe(false);
    expect(cpeMatches(parsed('cpe:2.3:o:*:*:*:*:*:*:*:*:*:*'), parsed('cpe:/a:openbsd:openssh'))).toBe(false);
  });
});

describe('values from free text', () => {
  it('lowercases, turns spaces into _, and maps empty to ANY', () => {
    expect(toCpeValue(' Apache HTTP  Server ')).toBe('apache_http_server');
    expect(toCpeValue('')).toBe(ANY);
    expect(toCpeValue(undefined)).toBe(ANY);
    expect(toCpeValue('-')).toBe(NA);
    expect(toCpeValue('a*b')).toBe('a\\*b');
    expect(makeCpe({ product: 'x' })).toMatchObject({ part: ANY, product: 'x', other: ANY });
  });
});
