import { describe, expect, it } from 'vitest';
import { ALL_PORTS, PortRange, parsePortList } from '../../../src/scanning/ports/index.js';

describe('parsePortList', () => {
  it('reads ports and ranges in the order written', () => {
    expect(parsePortList('22,80,8000-8003')).toEqual([22, 80, 8000, 8001, 8002, 8003]);
    expect(parsePortList(' 443 , 1 - 2 ')).toEqual([443, 1, 2]);
    expect(parsePortList('1-65535')).toHaveLength(65535);
  });

  it.each([
    ['0', /port 0 .*outside 1-65535/],
    ['65536', /port 65536 .*outside/],
    ['80-70', /"80-70" runs backwards/],
    ['22,,80', /empty entry/],
    ['', /empty entry/],
    ['http', /"http" is not a port/],
    ['22;80', /"22;80" is not a port/],
    ['-5', /"-5" is not a port/],
    ['1.5', /is not a port/],
    ['22,22', /port 22 more than once/],
    ['1-65535,80', /port 80 more than once/],
    ['123456', /is not a port/],
  ])('refuses %j', (text, message) => {
    expect(() => parsePortList(text)).toThrow(RangeError);
    expect(() => parsePortList(text)).toThrow(message);
  });

  it('refuses more than 65,535 entries and overlong text before expanding anything', () => {
    expect(() => parsePortList(Array(65536).fill('1').join(','))).toThrow(/more than 65535 entries/);
    expect(() => parsePortList('1'.repeat(400_001))).toThrow(/too long/);
  });
});

describe('ALL_PORTS', () => {
  it('is 1 to 65535 without an array behind it', () => {
    expect(ALL_PORTS.length).toBe(65535);
    expect(ALL_PORTS.at(0)).toBe(1);
    expect(ALL_PORTS.at(65534)).toBe(65535);
    expect(ALL_PORTS.at(65535)).toBeUndefined();
    expect(ALL_PORTS.at(-1)).toBeUndefined();
    expect(Array.isArray(ALL_PORTS)).toBe(false);
  });

  it('ranges refuse bad bounds', () => {
    expect(() => new PortRange(0, 10)).toThrow(RangeError);
    expect(() => new PortRange(10, 9)).toThrow(RangeError);
    expect(new PortRange(10, 12).at(2)).toBe(12);
  });
});
