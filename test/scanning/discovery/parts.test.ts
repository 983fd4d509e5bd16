import dgram from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DISCOVERY_TEMPLATE } from '../../../src/scanning/discovery/index.js';
import { nmapArguments, parseNmapXml } from '../../../src/scanning/discovery/nmap.js';
import { guessOs } from '../../../src/scanning/discovery/os-guess.js';
import { reverseResolver } from '../../../src/scanning/discovery/reverse-dns.js';
import { Slots, TokenBucket } from '../../../src/scanning/runtime/limits.js';
import { parseIpNeighbours, parseProcArp } from '../../../src/scanning/runtime/neighbours.js';
import { firstLine } from '../../../src/scanning/runtime/probe.js';

describe('TokenBucket (on a clock the test moves)', () => {
  it('lets a tenth of a second’s burst through, then one token per 1/rate', () => {
    let now = 0;
    const bucket = new TokenBucket(100, () => now);
    expect(bucket.burst).toBe(10);
    for (let i = 0; i < 10; i++) expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBe(10);
    now += 10;
    expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBeGreaterThan(0);
    now += 1000;
    let taken = 0;
    while (bucket.tryTake() === 0) taken++;
    expect(taken).toBe(10);
  });

  it('keeps at least one token at low rates and refuses a rate of zero', () => {
    let now = 0;
    const bucket = new TokenBucket(2, () => now);
    expect(bucket.burst).toBe(1);
    expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBe(500);
    now += 499;
    expect(bucket.tryTake()).toBe(1);
    now += 1;
    expect(bucket.tryTake()).toBe(0);
    expect(() => new TokenBucket(0)).toThrow(RangeError);
  });
});

describe('Slots', () => {
  it('holds at most its size and hands a released slot to the first waiter', async () => {
    const slots = new Slots(2);
    await slots.acquire();
    await slots.acquire();
    const order: number[] = [];
    const third = slots.acquire().then(() => order.push(3));
    const fourth = slots.acquire().then(() => order.push(4));
    expect(slots.inUse).toBe(2);
    slots.release();
    await third;
    expect(order).toEqual([3]);
    slots.refuseAll(new Error('aborted'));
    await expect(fourth).rejects.toThrow('aborted');
    expect(() => new Slots(0)).toThrow(RangeError);
  });

  it('takes many slots at once, in turn: a waiter for many is not overtaken by one for one', async () => {
    const slots = new Slots(4);
    await slots.acquireMany(3);
    const order: string[] = [];
    const many = slots.acquireMany(3).then(() => order.push('many'));
    const one = slots.acquire().then(() => order.push('one'));
    await Promise.resolve();
    // One slot is free, but the waiter for three came first.
    expect(order).toEqual([]);
    expect(slots.inUse).toBe(3);
    slots.releaseMany(3);
    await many;
    await one;
    expect(order).toEqual(['many', 'one']);
    expect(slots.inUse).toBe(4);
    expect(() => slots.acquireMany(5)).toThrow(RangeError);
    expect(() => slots.acquireMany(0)).toThrow(RangeError);
  });
});

describe('neighbour table', () => {
  it('reads ip -j neigh: states, MACs, IPv6', () => {
    const json = JSON.stringify([
      { dst: '198.18.0.5', dev: 'rlab0', lladdr: '02:AA:00:00:00:05', state: ['REACHABLE'] },
      { dst: '198.18.0.6', dev: 'rlab0', lladdr: '02:aa:00:00:00:06', state: ['STALE'] },
      { dst: '198.18.0.7', dev: 'rlab0', lladdr: '02:aa:00:00:00:07', state: ['DELAY'] },
      { dst: '198.18.0.8', dev: 'rlab0', state: ['INCOMPLETE'] },
      { dst: '198.18.0.9', dev: 'rlab0', state: ['FAILED'] },
      { dst: 'fd00::1', dev: 'eth0', lladdr: '02:fc:00:00:00:05', router: null, state: ['REACHABLE'] },
    ]);
    expect([...parseIpNeighbours(json)]).toEqual([
      ['198.18.0.5', { mac: '02:aa:00:00:00:05', state: 'reachable' }],
      ['198.18.0.6', { mac: '02:aa:00:00:00:06', state: 'stale' }],
      ['198.18.0.7', { mac: '02:aa:00:00:00:07', state: 'pending' }],
      ['198.18.0.8', { mac: null, state: 'incomplete' }],
      ['198.18.0.9', { mac: null, state: 'failed' }],
      ['fd00::1', { mac: '02:fc:00:00:00:05', state: 'reachable' }],
    ]);
    expect(parseIpNeighbours('')).toEqual(new Map());
  });

  it('reads /proc/net/arp: a complete entry gives a MAC, never proof of life', () => {
    const text = [
      'IP address       HW type     Flags       HW address            Mask     Device',
      '192.0.2.1        0x1         0x2         02:FC:00:00:00:05     *        eth0',
      '192.0.2.9        0x1         0x0         00:00:00:00:00:00     *        eth0',
    ].join('\n');
    expect([...parseProcArp(text)]).toEqual([
      ['192.0.2.1', { mac: '02:fc:00:00:00:05', state: 'stale' }],
      ['192.0.2.9', { mac: null, state: 'incomplete' }],
    ]);
  });
});

describe('reverse DNS', () => {
  it('answers no name when the server stays silent, after its timeout', async () => {
    const silentServer = dgram.createSocket('udp4');
    let queries = 0;
    silentServer.on('message', () => queries++);
    await new Promise<void>((resolve) => silentServer.bind(0, '127.0.0.1', resolve));
    try {
      const reverse = reverseResolver({
        servers: [`127.0.0.1:${silentServer.address().port}`],
        timeoutMs: 200,
      });
      expect(await reverse('127.77.13.2')).toEqual([]);
      expect(queries).toBeGreaterThan(0);
    } finally {
      silentServer.close();
    }
  });
});

describe('nmap', () => {
  it('asks for the template’s ports and limits', () => {
    const args = nmapArguments(
      { ...DEFAULT_DISCOVERY_TEMPLATE, ports: [22, 80], timeoutMs: 700, retries: 2 },
      4,
    );
    expect(args.join(' ')).toBe(
      '-sn -n -PS22,80 --max-retries 2 --initial-rtt-timeout 700ms --max-rtt-timeout 700ms --max-rate 500 --max-parallelism 256 -oX - -iL -',
    );
    expect(nmapArguments(DEFAULT_DISCOVERY_TEMPLATE, 6)).toContain('-6');
  });

  it('reads the live hosts and their MACs from its XML', () => {
    const xml = `<?xml version="1.0"?><nmaprun>
<host><status state="up" reason="arp-response" reason_ttl="0"/>
<address addr="198.18.0.5" addrtype="ipv4"/>
<address addr="02:AA:00:00:00:05" addrtype="mac"/>
<hostnames></hostnames></host>
<host><status state="up" reason="syn-ack" reason_ttl="64"/>
<address addr="2001:db8::5" addrtype="ipv6"/></host>
<host><status state="down" reason="no-response"/><address addr="198.18.0.6" addrtype="ipv4"/></host>
</nmaprun>`;
    expect([...parseNmapXml(xml)]).toEqual([
      ['198.18.0.5', '02:aa:00:00:00:05'],
      ['2001:db8::5', null],
    ]);
  });
});

describe('OS guess', () => {
  it('reads the distribution from an SSH banner, else the Windows port pattern, else nothing', () => {
    expect(guessOs([22], 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3')).toBe('Linux');
    expect(guessOs([22], 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10')).toBe('Linux');
    expect(guessOs([22], 'SSH-2.0-OpenSSH_for_Windows_8.1')).toBe('Windows');
    expect(guessOs([22], 'SSH-2.0-OpenSSH_9.3 FreeBSD-20230316')).toBe('FreeBSD');
    expect(guessOs([135, 445], null)).toBe('Windows');
    expect(guessOs([3389], null)).toBe('Windows');
    expect(guessOs([139, 445], null)).toBeNull();
    expect(guessOs([22, 80], 'SSH-2.0-OpenSSH_9.6')).toBeNull();
  });

  it('keeps the first printable line of a banner', () => {
    expect(firstLine('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\nnext')).toBe('SSH-2.0-OpenSSH_9.2p1 Debian-2');
    expect(firstLine('\u0000\u0001')).toBeNull();
  });
});
