// The system scan's safe checks against real Debian daemons in the lab (test/lab), each with a
// negative control: Debian's stock sshd (nothing weak) and one with old algorithms turned back
// on; vsftpd letting anonymous log in and vsftpd refusing it; Python's http.server, whose Server
// header names no product of the fingerprint table. Traffic goes only to the lab's /24.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemScan } from '../../../src/scanning/system/index.js';
import type { SystemHostResult, SystemTemplate } from '../../../src/scanning/types.js';
import { createLab, type Lab, labAvailable } from '../../lab/lab.js';

const NOW = new Date('2031-05-04T12:00:00Z');

const TEMPLATE: SystemTemplate = {
  ports: '21,22,8080',
  // Generous for a loaded two-core machine; vsftpd waits a second before it refuses a login.
  timeoutMs: 2000,
  retries: 1,
  maxInFlight: 64,
  connectionsPerSecond: 500,
  perHostInFlight: 8,
  portBudgetMs: 30_000,
  hostBudgetMs: 60_000,
  runBudgetMs: 120_000,
  serviceDetection: true,
  tlsChecks: true,
  safeChecks: true,
  useNmapVersionDetection: false,
};

describe.runIf(labAvailable())('[lab] system scan safe checks on real daemons', () => {
  let lab: Lab;
  const hosts: SystemHostResult[] = [];

  beforeAll(async () => {
    lab = await createLab(
      [
        { name: 'ssh', index: 10, daemons: ['sshd'] },
        { name: 'ssh-weak', index: 11, daemons: ['sshd-weak'] },
        { name: 'ftp-anon', index: 12, daemons: ['vsftpd-anonymous'] },
        { name: 'ftp', index: 13, daemons: ['vsftpd'] },
        { name: 'http', index: 14, daemons: ['http'] },
      ],
      { clock: () => NOW },
    );
    lab.assertRoutedIntoLab();
    const addresses = [...lab.hosts.values()].map((h) => h.address);
    const inLab = new Set(addresses);
    const result = await systemScan(addresses, TEMPLATE, {
      signal: AbortSignal.timeout(TEMPLATE.runBudgetMs + 30_000),
      check: (a) => (inLab.has(a) ? null : { rule: 'NotAllowed', message: `${a} is not a lab host` }),
      now: () => NOW,
      onHost: (h) => {
        hosts.push(h);
      },
    });
    expect(result).toEqual({ scanned: 5, refused: 0, budgetExhausted: null });
  }, 240_000);

  afterAll(() => lab?.teardown());

  const host = (name: string) => {
    const found = hosts.find((h) => h.address === lab.hosts.get(name)!.address);
    if (!found) throw new Error(`no result for ${name}`);
    return found;
  };
  const check = (name: string, id: string) => host(name).checks.find((c) => c.checkId === id);

  it("Debian's stock sshd (it offers umac-64): no ssh.weak-algorithms", () => {
    expect(host('ssh').services[0]).toMatchObject({ port: 22, product: 'OpenSSH' });
    expect(check('ssh', 'ssh.weak-algorithms')).toBeUndefined();
  });

  it('sshd with SHA-1 kex, ssh-rsa, CBC and MD5 turned back on: each listed with its category', () => {
    const weak = check('ssh-weak', 'ssh.weak-algorithms');
    expect(weak?.port).toBe(22);
    const listed = (weak!.details!.weak as { category: string; name: string }[]).map(
      (w) => `${w.category}:${w.name}`,
    );
    expect(listed).toEqual([
      'kex:diffie-hellman-group14-sha1',
      'host-key:ssh-rsa',
      'cipher:aes128-cbc',
      'mac:hmac-md5',
    ]);
    expect(weak?.evidence).toContain('ssh-rsa (host-key: ');
  });

  it('vsftpd with anonymous_enable=YES: ftp.anonymous-login on 21; refusing it: none', () => {
    const anonymous = check('ftp-anon', 'ftp.anonymous-login');
    expect(anonymous?.port).toBe(21);
    expect(anonymous?.evidence).toMatch(
      /^220 \(vsFTPd 3\.\d+\.\d+\); USER anonymous → 331 .*; PASS → 230 Login successful\.$/,
    );
    expect(host('ftp').services[0]).toMatchObject({ port: 21, service: 'ftp', product: 'vsftpd' });
    expect(check('ftp', 'ftp.anonymous-login')).toBeUndefined();
    // Both speak FTP without TLS.
    expect(check('ftp', 'cleartext.ftp')).toBeDefined();
  });

  it("Python's http.server: product and version from its Server header", () => {
    const http = host('http').services.find((s) => s.port === 8080);
    expect(http).toMatchObject({ service: 'http', product: 'SimpleHTTP' });
    expect(http?.version).toMatch(/^\d+\.\d+$/);
    expect(http?.evidence).toMatch(/^Server: SimpleHTTP\/\d+\.\d+ Python\/3\./);
  });
});
