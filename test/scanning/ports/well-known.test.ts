import { describe, expect, it } from 'vitest';
import { ALL_PORTS, portListOf, WELL_KNOWN_PORTS } from '../../../src/scanning/ports/index.js';

describe('WELL_KNOWN_PORTS (top1000)', () => {
  it('holds about a thousand ports, sorted and each once', () => {
    expect(WELL_KNOWN_PORTS.length).toBeGreaterThanOrEqual(900);
    expect(WELL_KNOWN_PORTS.length).toBeLessThanOrEqual(1100);
    for (let i = 1; i < WELL_KNOWN_PORTS.length; i++)
      expect(WELL_KNOWN_PORTS[i]!).toBeGreaterThan(WELL_KNOWN_PORTS[i - 1]!);
    expect(WELL_KNOWN_PORTS[0]).toBeGreaterThanOrEqual(1);
    expect(WELL_KNOWN_PORTS.at(-1)).toBeLessThanOrEqual(65535);
  });

  it('contains the ports every scan must see', () => {
    for (const port of [21, 22, 23, 25, 53, 80, 110, 143, 443, 445, 3306, 3389, 5432, 6379, 8080, 27017])
      expect(WELL_KNOWN_PORTS).toContain(port);
  });

  it('contains the common alternate ports services move to, and the ports our probes expect', () => {
    for (const port of [2222, 8022, 7777, 9999, 8000, 8099, 8443, 8888, 9000, 9100, 3000, 5000, 10000])
      expect(WELL_KNOWN_PORTS, String(port)).toContain(port);
    expect(WELL_KNOWN_PORTS).toHaveLength(1000);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(WELL_KNOWN_PORTS)).toBe(true);
  });
});

describe('portListOf', () => {
  it('names top1000 and all, in any case, and reads lists otherwise', () => {
    expect(portListOf('top1000')).toBe(WELL_KNOWN_PORTS);
    expect(portListOf(' TOP1000 ')).toBe(WELL_KNOWN_PORTS);
    expect(portListOf('all')).toBe(ALL_PORTS);
    expect(portListOf('22,80-81')).toEqual([22, 80, 81]);
  });

  it.each([['top100'], ['everything'], [''], ['0'], ['22,22']])('refuses %j with a RangeError', (text) => {
    expect(() => portListOf(text)).toThrow(RangeError);
  });

  it('refuses what is not text', () => {
    expect(() => portListOf(22 as unknown as string)).toThrow(/port list must be text/);
  });
});
