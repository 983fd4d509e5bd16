import { describe, expect, it } from 'vitest';
import { identify, type ServiceGuess } from '../../../src/scanning/fingerprints/index.js';

function expectBounded(found: ServiceGuess | null): void {
  if (found === null) return;
  expect(found.evidence.length).toBeLessThanOrEqual(200);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: checking that none are left
  expect(found.evidence).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect((found.version ?? '').length).toBeLessThanOrEqual(41);
}

/** A fixed pseudo-random sequence (a linear congruential generator), so that a failure repeats. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 16;
  };
}

describe('hostile banners', () => {
  it('cuts a huge banner and its evidence', () => {
    const found = identify({ port: 22, banner: `SSH-2.0-OpenSSH_9.2p1 ${'A'.repeat(5_000_000)}` });
    expect(found?.version).toBe('9.2p1');
    expect(found?.evidence).toHaveLength(200);
    expect(
      identify({ port: 80, httpHeaders: { Server: `nginx/1.22.1 ${'x'.repeat(1_000_000)}` } })?.version,
    ).toBe('1.22.1');
  });

  it('looks only at the start of a banner: a product far down is not seen', () => {
    expect(identify({ port: 6379, banner: `${'x\r\n'.repeat(100_000)}redis_version:7.0.15\r\n` })).toBeNull();
  });

  it('turns control characters into spaces in the evidence', () => {
    const found = identify({ port: 21, banner: '220 (vsFTPd 3.0.3)\u001b[31m\u0000\u0085 evil' });
    expect(found?.product).toBe('vsftpd');
    expect(found?.evidence).toBe('220 (vsFTPd 3.0.3) [31m   evil');
    expectBounded(found);
  });

  it('does not take an overlong version token', () => {
    const found = identify({ port: 80, httpHeaders: { Server: `nginx/1.${'2'.repeat(500)}` } });
    expect([found?.product, found?.version]).toEqual(['nginx', null]);
  });

  it('does not backtrack for long on near-miss patterns', () => {
    // A pathological pattern would take seconds on these; the test fails on a wrong answer, not a time.
    const banners = [
      `220 ${'ESMTP Sendmail 8'.repeat(500)}`,
      `SSH-2.0-${'OpenSSH_'.repeat(2000)}`,
      `HTTP/1.1 200 OK\r\nServer: ${'('.repeat(3000)}`,
      `* OK ${' '.repeat(8000)}`,
    ];
    for (const banner of banners) expectBounded(identify({ port: 25, banner }));
  });

  it('never throws on random bytes on any port it knows', () => {
    const next = seeded(15);
    for (let i = 0; i < 300; i++) {
      const banner = Buffer.from(Array.from({ length: 1 + (i % 97) * 11 }, () => next() & 0xff));
      for (const port of [21, 22, 25, 80, 143, 3306, 6379]) {
        expectBounded(identify({ port, banner }));
      }
    }
  });

  it('never throws on odd header maps', () => {
    const headers = JSON.parse('{"__proto__": {"server": "nginx/1.0"}, "Server": ""}') as Record<
      string,
      string
    >;
    expect(identify({ port: 80, httpHeaders: headers })).toMatchObject({ service: 'http', product: null });
    expect(identify({ port: 80, httpHeaders: { Server: 42 as unknown as string } })).toMatchObject({
      product: null,
    });
  });
});
