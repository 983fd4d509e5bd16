import { describe, expect, it } from 'vitest';
import {
  checkAddress,
  checkPolicyEntry,
  checkTarget,
  compilePolicy,
  countAddresses,
  expandTargets,
  isRefusal,
  parseTarget,
} from '../../src/scanning/targets/index.js';
import type { ScanTarget, TargetPolicy } from '../../src/scanning/types.js';

const policy = (allowed: string[], excluded: string[] = [], allowLoopback = false): TargetPolicy => ({
  allowed,
  excluded,
  allowLoopback,
});

async function collect(
  targets: ScanTarget[],
  exclusions: string[] = [],
  resolve?: (name: string) => Promise<string[]>,
): Promise<string[]> {
  const addresses: string[] = [];
  for await (const item of expandTargets(targets, exclusions, resolve ?? noResolver))
    addresses.push(item.hostname ? `${item.hostname}=${item.address}` : item.address);
  return addresses;
}

async function noResolver(name: string): Promise<string[]> {
  throw new Error(`no resolution in tests: ${name}`);
}

describe('parseTarget', () => {
  it.each([
    ['10.0.0.0/24', '10.0.0.0/24'],
    ['  10.0.0.5 ', '10.0.0.5'],
    ['10.0.0.1-10.0.0.20', '10.0.0.1-10.0.0.20'],
    ['10.0.0.1-20', '10.0.0.1-10.0.0.20'],
    ['10.0.0.1 - 10.0.0.3', '10.0.0.1-10.0.0.3'],
    ['10.0.0.0-10.0.0.255', '10.0.0.0/24'],
    ['2001:db8::/120', '2001:db8::/120'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8::1-2001:db8::ff', '2001:db8::1-2001:db8::ff'],
    ['::ffff:10.0.0.7', '10.0.0.7'],
    ['::ffff:10.0.0.0/120', '10.0.0.0/24'],
    ['Web-01.Example.com.', 'web-01.example.com'],
    ['*.example.com', '*.example.com'],
  ])('reads %s as %s', (text, canonical) => {
    const parsed = parseTarget(text);
    expect(isRefusal(parsed)).toBe(false);
    expect(!isRefusal(parsed) && parsed.text).toBe(canonical);
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['10.0.0.256', 'not a valid address'],
    ['10.0.0', 'not a valid address'],
    ['0x7f.1', 'not a valid address'],
    ['2130706433', 'not a valid address'],
    ['010.0.0.1', 'not a valid address'],
    ['10.0.0.0/33', 'invalid prefix length'],
    ['10.0.0.0/', 'invalid prefix length'],
    ['10.0.0.0/8/8', 'not a CIDR'],
    ['10.0.0.5/24', 'did you mean 10.0.0.0/24?'],
    ['2001:db8::/129', 'expected 0 to 128'],
    ['10.0.0.9-10.0.0.1', 'ends before it starts'],
    ['10.0.0.1-300', 'is not an address'],
    ['10.0.0.1-2001:db8::1', 'mixes IPv4 and IPv6'],
    ['fe80::1%eth0', 'zone identifier'],
    ['-bad.example.com', 'neither'],
    ['bad_name.example.com', '"bad_name" is not a valid label'],
    ['*.com', 'too wide'],
    ['a.*.example.com', 'neither'],
    ['::fffe:ffff:ff00-::ffff:0:ff', 'IPv4-mapped'],
    ['x'.repeat(301), 'longer than 300'],
  ])('refuses %j (%s)', (text, words) => {
    const parsed = parseTarget(text);
    expect(parsed).toMatchObject({ rule: 'Syntax' });
    expect(isRefusal(parsed) && parsed.message).toContain(words);
  });
});

describe('checkTarget', () => {
  const lab = policy([
    '198.18.0.0/16',
    '10.0.0.0/24',
    '2001:db8::/112',
    'scanme.example.com',
    '*.lab.example.com',
  ]);

  it('accepts targets inside the allowed ranges, the benchmarking lab included', () => {
    expect(checkTarget('198.18.0.0/16', lab)).toBeNull();
    expect(checkTarget('198.18.3.7', lab)).toBeNull();
    expect(checkTarget('10.0.0.10-10.0.0.20', lab)).toBeNull();
    expect(checkTarget('2001:db8::1-2001:db8::ffff', lab)).toBeNull();
    expect(checkTarget('::ffff:10.0.0.9', lab)).toBeNull();
  });

  it('refuses everything while nothing is allowed, saying where to allow ranges', () => {
    const refusal = checkTarget('10.0.0.1', policy([]));
    expect(refusal).toMatchObject({ rule: 'NotAllowed' });
    expect(refusal?.message).toContain('Allowed scan targets');
  });

  it('needs a range to lie wholly inside the union of allowed ranges', () => {
    expect(checkTarget('10.0.0.0/23', lab)).toEqual({
      rule: 'NotAllowed',
      message: '10.0.0.0/23 is not wholly inside the allowed scan targets: 10.0.1.0/24 is not allowed.',
    });
    expect(checkTarget('10.0.0.0/23', policy(['10.0.0.0/24', '10.0.1.0-10.0.1.255']))).toBeNull();
    expect(checkTarget('10.0.1.1', lab)).toEqual({
      rule: 'NotAllowed',
      message: '10.0.1.1 is not inside the allowed scan targets.',
    });
  });

  it('refuses targets larger than a /16, in IPv4 and IPv6 alike', () => {
    const refusal = checkTarget('198.18.0.0/15', lab);
    expect(refusal?.rule).toBe('TooLarge');
    expect(refusal?.message).toContain('131,072 addresses');
    expect(checkTarget('10.0.0.0-10.1.0.0', lab)?.rule).toBe('TooLarge');
    expect(checkTarget('2001:db8::/111', lab)?.rule).toBe('TooLarge');
    expect(checkTarget('2001:db8::/64', lab)?.rule).toBe('TooLarge');
  });

  it.each([
    ['169.254.169.254', 'cloud metadata address'],
    ['::ffff:169.254.169.254', 'cloud metadata address'],
    ['::ffff:a9fe:a9fe', 'cloud metadata address'],
    ['64:ff9b::a9fe:a9fe', 'through the NAT64 prefix'],
    ['169.254.1.0/24', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::a9fe:a9fe', 'IPv4-compatible'],
    ['ff02::1', 'IPv6 multicast'],
    ['fe80::1', 'IPv6 link-local'],
    ['169.254.169.250-169.254.169.254', 'overlaps the link-local block'],
    ['223.255.255.0/24', 'never scanned'],
  ])('always refuses %s, whatever the policy', (target, words) => {
    const everything = policy([target, '169.254.0.0/16', '224.0.0.0/16', 'ff02::/16'], [], true);
    const refusal = checkTarget(target, everything);
    if (target === '223.255.255.0/24') {
      expect(refusal).toBeNull();
      return;
    }
    expect(refusal?.rule).toBe('AlwaysRefused');
    expect(refusal?.message).toContain(words);
    expect(refusal?.message).toContain('never scanned');
  });

  it('refuses a range touching an always-refused block, naming it', () => {
    expect(checkTarget('223.255.255.0-224.0.0.3', policy(['223.255.0.0/16']))).toMatchObject({
      rule: 'AlwaysRefused',
      message: '223.255.255.0-224.0.0.3 overlaps the multicast block 224.0.0.0/4, which is never scanned.',
    });
  });

  it('refuses loopback unless the server allows it, and then only where allowed', () => {
    expect(checkTarget('127.0.0.1', policy(['127.0.0.0/16']))).toMatchObject({ rule: 'Loopback' });
    expect(checkTarget('::1', policy(['::1']))?.message).toContain('RAMPART_SCAN_ALLOW_LOOPBACK=true');
    expect(checkTarget('::ffff:127.0.0.1', policy([]))?.rule).toBe('Loopback');
    expect(checkTarget('127.0.0.1', policy(['127.0.0.0/16'], [], true))).toBeNull();
    expect(checkTarget('::1', policy(['::1'], [], true))).toBeNull();
    expect(checkTarget('127.0.0.1', policy([], [], true))?.rule).toBe('NotAllowed');
  });

  it('refuses the names that mean loopback like loopback addresses', () => {
    const allowed = ['localhost', 'ip6-localhost', 'app.localhost', 'db.lab.example.com'];
    for (const name of ['localhost', 'LOCALHOST.', 'app.localhost', 'ip6-localhost', 'ip6-loopback']) {
      expect(checkTarget(name, policy(allowed)), name).toMatchObject({ rule: 'Loopback' });
      expect(checkTarget(name, policy(allowed))?.message, name).toContain('RAMPART_SCAN_ALLOW_LOOPBACK=true');
    }
    // A name that only looks alike is an ordinary host name.
    expect(checkTarget('localhost.example.com', policy(['localhost.example.com']))).toBeNull();
    expect(checkTarget('mylocalhost', policy(['mylocalhost']))).toBeNull();
    // Where the server allows loopback, a loopback name is judged like any allowed name.
    expect(checkTarget('localhost', policy(['localhost'], [], true))).toBeNull();
    expect(checkTarget('localhost', policy([], [], true))?.rule).toBe('NotAllowed');
  });

  it('lets exclusions subtract: a wholly excluded target is refused, a partly excluded one allowed', () => {
    const p = policy(['10.0.0.0/24'], ['10.0.0.128/25', '10.0.0.7', 'printer.lab.example.com']);
    expect(checkTarget('10.0.0.7', p)).toEqual({
      rule: 'Excluded',
      message: '10.0.0.7 is excluded from scans.',
    });
    expect(checkTarget('10.0.0.128-10.0.0.200', p)?.rule).toBe('Excluded');
    expect(checkTarget('10.0.0.0/24', p)).toBeNull();
    // The excluded part of a target need not be allowed: it is never scanned.
    expect(checkTarget('10.0.0.0/23', policy(['10.0.0.0/24'], ['10.0.1.0/24']))).toBeNull();
  });

  it('allows a host name the policy names, exactly or by a wildcard, not otherwise', () => {
    expect(checkTarget('scanme.example.com', lab)).toBeNull();
    expect(checkTarget('db.lab.example.com', lab)).toBeNull();
    expect(checkTarget('a.b.lab.example.com', lab)).toBeNull();
    expect(checkTarget('lab.example.com', lab)?.rule).toBe('NotAllowed');
    expect(checkTarget('other.example.com', lab)?.message).toContain('other.example.com is not allowed');
    expect(checkTarget('*.lab.example.com', lab)).toMatchObject({ rule: 'Syntax' });
    const withExclusion = policy(['*.lab.example.com'], ['printer.lab.example.com']);
    expect(checkTarget('printer.lab.example.com', withExclusion)?.rule).toBe('Excluded');
  });

  it('subtracts the scan and target exclusions given to a compiled policy', () => {
    const compiled = compilePolicy(policy(['10.0.0.0/25']));
    expect(compiled.checkTarget('10.0.0.0/24')?.rule).toBe('NotAllowed');
    expect(compiled.checkTarget('10.0.0.0/24', ['10.0.0.128-10.0.0.255'])).toBeNull();
  });
});

describe('checkAddress', () => {
  const p = policy(['198.18.0.0/16', '2001:db8::/112', '*.lab.example.com'], ['198.18.0.99']);

  it('judges each concrete address before a packet', () => {
    expect(checkAddress('198.18.0.1', p)).toBeNull();
    expect(checkAddress('2001:db8::42', p)).toBeNull();
    expect(checkAddress('::ffff:198.18.0.1', p)).toBeNull();
    expect(checkAddress('198.18.0.99', p)?.rule).toBe('Excluded');
    expect(checkAddress('198.19.0.1', p)?.rule).toBe('NotAllowed');
    expect(checkAddress('169.254.169.254', p)?.rule).toBe('AlwaysRefused');
    expect(checkAddress('::ffff:169.254.169.254', p)?.rule).toBe('AlwaysRefused');
    expect(checkAddress('fe80::1', p)?.rule).toBe('AlwaysRefused');
    expect(checkAddress('ff02::1', p)?.rule).toBe('AlwaysRefused');
    expect(checkAddress('127.0.0.1', p)?.rule).toBe('Loopback');
    expect(checkAddress('10.0.0.0/24', p)?.rule).toBe('Syntax');
    expect(checkAddress('db.lab.example.com', p)?.rule).toBe('Syntax');
  });

  it('allows the resolved addresses of an allowed host name, and only those', () => {
    const names = new Map([
      ['db.lab.example.com', ['10.9.0.5', '2001:db8:1::5']],
      ['evil.example.com', ['10.9.0.6']],
    ]);
    const compiled = compilePolicy(p);
    expect(compiled.checkAddress('10.9.0.5', names)).toBeNull();
    expect(compiled.checkAddress('2001:db8:1::5', names)).toBeNull();
    expect(compiled.checkAddress('10.9.0.6', names)?.rule).toBe('NotAllowed');
    expect(compiled.checkAddress('10.9.0.5')?.rule).toBe('NotAllowed');
    // A name resolving to the metadata address gains nothing.
    const sneaky = new Map([['db.lab.example.com', ['169.254.169.254', '127.0.0.1']]]);
    expect(compiled.checkAddress('169.254.169.254', sneaky)?.rule).toBe('AlwaysRefused');
    expect(compiled.checkAddress('127.0.0.1', sneaky)?.rule).toBe('Loopback');
  });

  it('fails closed on a policy it cannot read: a bad allowed entry allows nothing, a bad exclusion throws', () => {
    expect(checkAddress('10.0.0.1', policy(['10.0.0.0/33', '10.0.0.1-']))?.rule).toBe('NotAllowed');
    expect(() => compilePolicy(policy(['10.0.0.0/24'], ['10.0.0.300']))).toThrow(/exclusion "10.0.0.300"/);
  });

  it('merges adjacent and overlapping allowed entries, in any order', () => {
    const compiled = compilePolicy(
      policy(['10.0.1.0/24', '10.0.0.128/25', '10.0.0.0-10.0.0.200', '2001:db8::/120']),
    );
    expect(compiled.checkTarget('10.0.0.0/23')).toBeNull();
    expect(compiled.checkTarget('10.0.0.0-10.0.2.0')?.message).toContain('10.0.2.0 is not allowed');
    expect(compiled.checkAddress('2001:db8::ff')).toBeNull();
    expect(compiled.checkAddress('2001:db8::100')?.rule).toBe('NotAllowed');
  });

  it('lets loopback through only with the flag and an allowed range', () => {
    expect(checkAddress('127.0.0.1', policy(['127.0.0.0/8'], [], true))).toBeNull();
    expect(checkAddress('127.0.0.1', policy(['198.18.0.0/16'], [], true))?.rule).toBe('NotAllowed');
  });
});

describe('checkPolicyEntry', () => {
  it('holds allowed entries to the target rules, and stores the canonical text', () => {
    expect(checkPolicyEntry('Allowed', '10.0.0.0-10.0.0.255', false)).toEqual({
      target: '10.0.0.0/24',
      addressCount: 256,
    });
    expect(checkPolicyEntry('Allowed', '*.Lab.Example.com', false)).toEqual({
      target: '*.lab.example.com',
      addressCount: null,
    });
    expect(checkPolicyEntry('Allowed', '10.0.0.0/15', false)).toMatchObject({ rule: 'TooLarge' });
    expect(checkPolicyEntry('Allowed', '169.254.0.0/16', false)).toMatchObject({ rule: 'AlwaysRefused' });
    expect(checkPolicyEntry('Allowed', '127.0.0.0/16', false)).toMatchObject({ rule: 'Loopback' });
    expect(checkPolicyEntry('Allowed', '127.0.0.0/16', true)).toEqual({
      target: '127.0.0.0/16',
      addressCount: 65536,
    });
    expect(checkPolicyEntry('Allowed', 'nope!', false)).toMatchObject({ rule: 'Syntax' });
    for (const name of [
      'localhost',
      'localhost.',
      'Localhost',
      'ip6-localhost',
      'x.localhost',
      '*.localhost',
      '*.a.localhost',
    ])
      expect(checkPolicyEntry('Allowed', name, false), name).toMatchObject({ rule: 'Loopback' });
    expect(checkPolicyEntry('Allowed', 'localhost', true)).toEqual({ target: 'localhost', addressCount: 1 });
    expect(checkPolicyEntry('Excluded', 'localhost', false)).toEqual({
      target: 'localhost',
      addressCount: 1,
    });
  });

  it('lets exclusions be as wide as wanted: excluding can never let a packet through', () => {
    expect(checkPolicyEntry('Excluded', '10.0.0.0/8', false)).toEqual({
      target: '10.0.0.0/8',
      addressCount: 16777216,
    });
    expect(checkPolicyEntry('Excluded', '169.254.0.0/16', false)).toMatchObject({ target: '169.254.0.0/16' });
    expect(checkPolicyEntry('Excluded', '10.0.0.', false)).toMatchObject({ rule: 'Syntax' });
  });
});

describe('countAddresses', () => {
  it('counts every address once, without exclusions; a host name counts 1', () => {
    expect(countAddresses([{ range: '10.0.0.0/24' }], [])).toBe(254);
    expect(countAddresses([{ range: '10.0.0.0/31' }, { range: '10.0.0.8/32' }], [])).toBe(3);
    expect(countAddresses([{ range: '10.0.0.0/24' }, { range: '10.0.0.10-10.0.0.20' }], [])).toBe(254);
    expect(countAddresses([{ range: '10.0.0.1-10.0.0.10', exclude: ['10.0.0.5'] }], ['10.0.0.1-3'])).toBe(6);
    expect(
      countAddresses([{ range: 'a.example.com' }, { range: 'a.example.com' }, { range: '10.0.0.1' }], []),
    ).toBe(2);
    expect(countAddresses([{ range: 'a.example.com' }], ['a.example.com'])).toBe(0);
    expect(countAddresses([{ range: '198.18.0.0/16' }], [])).toBe(65534);
    expect(countAddresses([{ range: '2001:db8::/112' }], [])).toBe(65536);
  });

  it('refuses a target that does not parse rather than guess', () => {
    expect(() => countAddresses([{ range: '10.0.0.0/33' }], [])).toThrow(/prefix length/);
  });
});

describe('expandTargets', () => {
  it('walks a CIDR without its network and broadcast addresses', async () => {
    expect(await collect([{ range: '10.0.0.0/29' }])).toEqual([
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      '10.0.0.4',
      '10.0.0.5',
      '10.0.0.6',
    ]);
    expect(await collect([{ range: '10.0.0.0/31' }])).toEqual(['10.0.0.0', '10.0.0.1']);
    expect(await collect([{ range: '10.0.0.0-10.0.0.2' }])).toEqual(['10.0.0.0', '10.0.0.1', '10.0.0.2']);
    expect(await collect([{ range: '2001:db8::/126' }])).toEqual([
      '2001:db8::',
      '2001:db8::1',
      '2001:db8::2',
      '2001:db8::3',
    ]);
  });

  it('hands out each address once across overlapping targets, under the first target', async () => {
    const first = { range: '10.0.0.1-10.0.0.4', name: 'first' };
    const second = { range: '10.0.0.3-10.0.0.6', name: 'second' };
    const seen: [string, string | null | undefined][] = [];
    for await (const item of expandTargets([first, second], [])) seen.push([item.address, item.target.name]);
    expect(seen).toEqual([
      ['10.0.0.1', 'first'],
      ['10.0.0.2', 'first'],
      ['10.0.0.3', 'first'],
      ['10.0.0.4', 'first'],
      ['10.0.0.5', 'second'],
      ['10.0.0.6', 'second'],
    ]);
  });

  it('leaves out scan-wide and per-target exclusions, by range and by host name', async () => {
    const targets = [
      { range: '10.0.0.1-10.0.0.6', exclude: ['10.0.0.2', '10.0.0.4-5'] },
      { range: 'skip.example.com' },
      { range: 'keep.example.com', exclude: ['10.0.0.9'] },
    ];
    const resolve = async (name: string) =>
      name === 'keep.example.com' ? ['10.0.0.8', '10.0.0.9'] : ['10.0.0.7'];
    expect(await collect(targets, ['10.0.0.6', 'skip.example.com'], resolve)).toEqual([
      '10.0.0.1',
      '10.0.0.3',
      'keep.example.com=10.0.0.8',
    ]);
  });

  it('resolves host names through the injected resolver and dedupes their addresses', async () => {
    const resolve = async (name: string) =>
      ({ 'a.example.com': ['10.0.0.2', '::ffff:10.0.0.3', '2001:DB8::1'], 'b.example.com': ['10.0.0.3'] })[
        name
      ] ?? [];
    expect(
      await collect(
        [{ range: 'a.example.com' }, { range: '10.0.0.1-10.0.0.3' }, { range: 'b.example.com' }],
        [],
        resolve,
      ),
    ).toEqual(['a.example.com=10.0.0.2', 'a.example.com=10.0.0.3', 'a.example.com=2001:db8::1', '10.0.0.1']);
  });

  it('reports a name that does not resolve and goes on', async () => {
    const failures: string[] = [];
    const seen: string[] = [];
    for await (const item of expandTargets(
      [{ range: 'gone.example.com' }, { range: '10.0.0.1' }],
      [],
      async () => {
        throw new Error('ENOTFOUND');
      },
      (name, _target, error) => failures.push(`${name}: ${(error as Error).message}`),
    ))
      seen.push(item.address);
    expect(seen).toEqual(['10.0.0.1']);
    expect(failures).toEqual(['gone.example.com: ENOTFOUND']);
  });

  it('walks a /16 lazily: the first address comes without listing the rest', async () => {
    const iterator = expandTargets([{ range: '198.18.0.0/16' }], [])[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.address).toBe('198.18.0.1');
    expect((await iterator.next()).value?.address).toBe('198.18.0.2');
    await iterator.return?.();
    expect(await collect([{ range: '198.18.0.0/16' }])).toHaveLength(
      countAddresses([{ range: '198.18.0.0/16' }], []),
    );
  });

  it('refuses a wildcard as a scan target', async () => {
    await expect(collect([{ range: '*.example.com' }])).rejects.toThrow(/wildcards/);
  });
});
