import { afterEach, describe, expect, it } from 'vitest';
import { systemScan, validateSystemTemplate } from '../../../src/scanning/system/index.js';
import type { SystemHostResult, SystemTemplate, TargetRefusal } from '../../../src/scanning/types.js';
import { softwareOf } from '../../../src/scanning/web/findings.js';
import type { HttpAnswer } from '../../../src/scanning/web/http.js';
import { makeCertificate } from '../tls/certs.js';
import { type Running, redisServer, sshGreeting, tcpServer } from './servers.js';

/** A response carrying only a Server header, as the web engine hands it to softwareOf. */
function answerWith(server: string): HttpAnswer {
  return { headerLines: [['Server', server]] } as unknown as HttpAnswer;
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function keep(running: Running): Running {
  cleanups.push(running.close);
  return running;
}

const NOW = new Date('2031-05-04T12:00:00Z');

function template(extra: Partial<SystemTemplate> = {}): SystemTemplate {
  return {
    ports: '1',
    timeoutMs: 1000,
    retries: 0,
    maxInFlight: 16,
    connectionsPerSecond: 1000,
    perHostInFlight: 4,
    portBudgetMs: 20_000,
    hostBudgetMs: 60_000,
    runBudgetMs: 120_000,
    serviceDetection: true,
    tlsChecks: true,
    safeChecks: true,
    useNmapVersionDetection: false,
    ...extra,
  };
}

async function scan(address: string, ports: number[], extra: Partial<SystemTemplate> = {}, more = {}) {
  const hosts: SystemHostResult[] = [];
  const result = await systemScan([address], template({ ports: ports.join(','), ...extra }), {
    signal: new AbortController().signal,
    check: () => null,
    now: () => NOW,
    onHost: (h) => {
      hosts.push(h);
    },
    ...more,
  });
  return { result, hosts, host: hosts[0]! };
}

const ids = (host: SystemHostResult) => host.checks.map((c) => `${c.checkId}@${c.port}`);

describe('system scans of real daemons on 127.0.0.1', () => {
  it('Redis without a password: identified with its version, noauth.redis found', async () => {
    const redis = keep(await redisServer());
    const { host, result } = await scan('127.0.0.1', [redis.port]);
    expect(result).toEqual({ scanned: 1, refused: 0, budgetExhausted: null });
    expect(host.openPorts).toEqual([redis.port]);
    expect(host.services).toHaveLength(1);
    expect(host.services[0]).toMatchObject({
      port: redis.port,
      service: 'redis',
      product: 'Redis',
      tls: false,
      detectedBy: 'rampart',
    });
    expect(host.services[0]!.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(ids(host)).toContain(`noauth.redis@${redis.port}`);
    expect(ids(host)).toContain(`service.version-disclosed@${redis.port}`);
  });

  it('Redis with requirepass: -NOAUTH is protection, no finding', async () => {
    const redis = keep(await redisServer('s3cret-for-test'));
    const { host } = await scan('127.0.0.1', [redis.port]);
    expect(host.services[0]).toMatchObject({ service: 'redis', product: 'Redis', version: null });
    expect(host.checks).toEqual([]);
  });

  it('PostgreSQL on 5432: a startup for a role that does not exist names the product', async () => {
    const { host } = await scan('127.0.0.1', [5432]);
    expect(host.services[0]).toMatchObject({ port: 5432, service: 'postgresql', product: 'PostgreSQL' });
    expect(host.services[0]!.cpes).toEqual(['cpe:2.3:a:postgresql:postgresql:*:*:*:*:*:*:*:*']);
  });

  it('safe checks off: services without checks; service detection off: checks without services', async () => {
    const redis = keep(await redisServer());
    const quiet = await scan('127.0.0.1', [redis.port], { safeChecks: false });
    expect(quiet.host.services).toHaveLength(1);
    expect(quiet.host.checks).toEqual([]);
    const blind = await scan('127.0.0.1', [redis.port], { serviceDetection: false });
    expect(blind.host.services).toEqual([]);
    expect(ids(blind.host)).toContain(`noauth.redis@${redis.port}`);
  });
});

describe('system scans of node servers on 127.0.0.1', () => {
  it('SSH with weak algorithms: the KEXINIT is read after our identification line', async () => {
    const greeting = sshGreeting(
      'SSH-2.0-OpenSSH_7.4',
      ['curve25519-sha256', 'diffie-hellman-group1-sha1', 'diffie-hellman-group14-sha1'],
      ['aes128-ctr', 'aes256-cbc', 'arcfour128'],
      ['hmac-sha2-256', 'hmac-md5', 'umac-64@openssh.com'],
    );
    const line = greeting.indexOf(0x0a) + 1;
    const ssh = keep(
      await tcpServer('127.0.0.1', (socket) => {
        socket.write(greeting.subarray(0, line));
        // Like OpenSSH, the KEXINIT comes once the client has identified itself.
        socket.once('data', () => socket.write(greeting.subarray(line)));
      }),
    );
    const { host } = await scan('127.0.0.1', [ssh.port]);
    expect(host.services[0]).toMatchObject({ service: 'ssh', product: 'OpenSSH', version: '7.4' });
    const weak = host.checks.find((c) => c.checkId === 'ssh.weak-algorithms');
    expect(weak?.evidence).toBe(
      'SSH-2.0-OpenSSH_7.4; weak algorithms offered: diffie-hellman-group1-sha1 (kex: 1024-bit group with SHA-1 (RFC 9142: MUST NOT)); diffie-hellman-group14-sha1 (kex: SHA-1 exchange hash (RFC 9142: SHOULD NOT)); ssh-rsa (host-key: RSA signatures with SHA-1 (RFC 8332; off by default since OpenSSH 8.8)); aes256-cbc (cipher: CBC mode (plaintext recovery attacks on SSH, CVE-2008-5161)); arcfour128 (cipher: RC4 (RFC 8758: MUST NOT)); hmac-md5 (mac: MD5)',
    );
    expect((weak!.details!.weak as { category: string }[]).map((w) => w.category)).toEqual([
      'kex',
      'kex',
      'host-key',
      'cipher',
      'cipher',
      'mac',
    ]);
    expect(ids(host)).not.toContain(`ssh.protocol-1@${ssh.port}`);
  });

  it('SSH-1.99 announces protocol 1', async () => {
    const ssh = keep(await tcpServer('127.0.0.1', (s) => s.write('SSH-1.99-OpenSSH_3.9p1\r\n')));
    const { host } = await scan('127.0.0.1', [ssh.port]);
    expect(ids(host)).toContain(`ssh.protocol-1@${ssh.port}`);
  });

  it('HTTP that does not speak first gets GET / with a Host header; its Server header names nginx', async () => {
    const requests: string[] = [];
    const http = keep(
      await tcpServer('127.0.0.1', (socket) => {
        socket.once('data', (chunk) => {
          requests.push(chunk.toString('latin1'));
          socket.end('HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Length: 0\r\n\r\n');
        });
      }),
    );
    const { host } = await scan(
      '127.0.0.1',
      [http.port],
      {},
      { hostnames: new Map([['127.0.0.1', 'web.test']]) },
    );
    expect(host.hostname).toBe('web.test');
    expect(host.services[0]).toMatchObject({
      service: 'http',
      product: 'nginx',
      version: '1.22.1',
      tls: false,
      banner: 'HTTP/1.1 200 OK',
    });
    expect(requests.some((r) => r.startsWith('GET / HTTP/1.0\r\nHost: web.test\r\n'))).toBe(true);
    expect(ids(host)).toEqual([`service.version-disclosed@${http.port}`]);
  });

  it('HTTP on an unknown port: the Server header names the product as a web scan reads it', async () => {
    // Servers outside the fingerprint table (Python's http.server, Jetty, a vendor's appliance):
    // the system scan's service and the web scan's software read the same header the same way.
    for (const server of ['SimpleHTTP/0.6 Python/3.11.2', 'Jetty(9.4.51.v20230217)', 'Kestrel']) {
      const http = keep(
        await tcpServer('127.0.0.1', (socket) => {
          socket.once('data', () =>
            socket.end(`HTTP/1.1 404 Not Found\r\nServer: ${server}\r\nContent-Length: 0\r\n\r\n`),
          );
        }),
      );
      const { host } = await scan('127.0.0.1', [http.port]);
      const web = softwareOf([answerWith(server)], http.port)[0]!;
      expect(web.product, server).not.toBeNull();
      expect(host.services[0], server).toMatchObject({
        service: 'http',
        product: web.product,
        version: web.version,
        cpes: web.cpes,
        evidence: `Server: ${server}`,
      });
    }
  });

  it('HTTP whose Server header names no product token gives no product', async () => {
    const http = keep(
      await tcpServer('127.0.0.1', (socket) => {
        socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nServer: ***\r\nContent-Length: 0\r\n\r\n'));
      }),
    );
    const { host } = await scan('127.0.0.1', [http.port]);
    expect(host.services[0]).toMatchObject({ service: 'http', product: null, version: null, cpes: [] });
    expect(ids(host)).toEqual([]);
  });

  /** An FTP server that logs what it was sent and answers the login as `accept` says. */
  async function ftpServer(accept: 'anonymous' | 'nobody', sent: string[]) {
    return keep(
      await tcpServer('127.0.0.1', (s) => {
        s.write('220 (vsFTPd 3.0.3)\r\n');
        s.on('data', (d) => {
          for (const command of d.toString('latin1').split('\r\n').filter(Boolean)) {
            sent.push(command);
            if (command === 'FEAT') s.write('211-Features:\r\n PASV\r\n211 End\r\n');
            else if (command.startsWith('USER ')) s.write('331 Please specify the password.\r\n');
            else if (command.startsWith('PASS '))
              s.write(accept === 'anonymous' ? '230 Login successful.\r\n' : '530 Login incorrect.\r\n');
            else if (command === 'QUIT') s.end('221 Goodbye.\r\n');
          }
        });
      }),
    );
  }

  it('FTP that lets anonymous log in: USER anonymous, PASS, 230, then QUIT and nothing else', async () => {
    const sent: string[] = [];
    const ftp = await ftpServer('anonymous', sent);
    const { host } = await scan('127.0.0.1', [ftp.port]);
    const found = host.checks.find((c) => c.checkId === 'ftp.anonymous-login');
    expect(found).toMatchObject({ port: ftp.port });
    expect(found?.evidence).toBe(
      '220 (vsFTPd 3.0.3); USER anonymous → 331 Please specify the password.; PASS → 230 Login successful.',
    );
    // A login and a goodbye: no listing, no transfer, no write.
    expect(sent).toEqual(['FEAT', 'USER anonymous', 'PASS rampart@example.invalid', 'QUIT']);
  });

  it('FTP that refuses anonymous: no finding; with safe checks off, no login is tried at all', async () => {
    const sent: string[] = [];
    const ftp = await ftpServer('nobody', sent);
    const { host } = await scan('127.0.0.1', [ftp.port]);
    expect(ids(host)).not.toContain(`ftp.anonymous-login@${ftp.port}`);
    expect(sent).toEqual(['FEAT', 'USER anonymous', 'PASS rampart@example.invalid', 'QUIT']);
    const quiet: string[] = [];
    const other = await ftpServer('anonymous', quiet);
    const off = await scan('127.0.0.1', [other.port], { safeChecks: false });
    expect(off.host.checks).toEqual([]);
    expect(quiet).toEqual([]);
  });

  it('FTP without AUTH TLS, SMTP without STARTTLS, POP3 with STLS, Telnet', async () => {
    const ftp = keep(
      await tcpServer('127.0.0.1', (s) => {
        s.write('220 (vsFTPd 3.0.3)\r\n');
        s.on('data', (d) => {
          if (d.toString().startsWith('FEAT')) s.write('211-Features:\r\n EPRT\r\n PASV\r\n211 End\r\n');
        });
      }),
    );
    const smtp = keep(
      await tcpServer('127.0.0.1', (s) => {
        s.write('220 mail.test ESMTP Postfix\r\n');
        s.on('data', (d) => {
          if (d.toString().startsWith('EHLO')) s.write('250-mail.test\r\n250-PIPELINING\r\n250 8BITMIME\r\n');
        });
      }),
    );
    const pop3 = keep(
      await tcpServer('127.0.0.1', (s) => {
        s.write('+OK Dovecot ready.\r\n');
        s.on('data', (d) => {
          if (d.toString().startsWith('CAPA')) s.write('+OK\r\nTOP\r\nSTLS\r\nUIDL\r\n.\r\n');
        });
      }),
    );
    const telnet = keep(
      await tcpServer('127.0.0.1', (s) => s.write(Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20]))),
    );
    const { host } = await scan('127.0.0.1', [ftp.port, smtp.port, pop3.port, telnet.port]);
    const found = ids(host);
    expect(found).toContain(`cleartext.ftp@${ftp.port}`);
    expect(found).toContain(`service.version-disclosed@${ftp.port}`);
    expect(found).toContain(`cleartext.mail@${smtp.port}`);
    expect(found).toContain(`cleartext.telnet@${telnet.port}`);
    expect(found.filter((f) => f.endsWith(`@${pop3.port}`))).toEqual([]);
    expect(host.services.map((s) => s.service)).toEqual(
      [
        [ftp.port, 'ftp'],
        [smtp.port, 'smtp'],
        [pop3.port, 'pop3'],
        [telnet.port, 'telnet'],
      ]
        .sort((a, b) => (a[0] as number) - (b[0] as number))
        .map((x) => x[1]),
    );
  });

  it('TLS: HTTP inside is https, and the TLS checks judge the certificate against the injected clock', async () => {
    const cert = makeCertificate({ commonName: 'tls.test', days: 30 });
    const server = keep(
      await tcpServer(
        '127.0.0.1',
        (socket) => {
          socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\n\r\n'));
        },
        cert,
      ),
    );
    const after = new Date(cert.notAfter.getTime() + 86_400_000);
    const { host } = await scan('127.0.0.1', [server.port], {}, { now: () => after });
    expect(host.services[0]).toMatchObject({ service: 'https', product: 'nginx', tls: true });
    expect(ids(host)).toContain(`tls.certificate-expired@${server.port}`);
    expect(ids(host)).toContain(`tls.certificate-self-signed@${server.port}`);
    const during = await scan(
      '127.0.0.1',
      [server.port],
      {},
      { now: () => new Date(cert.notBefore.getTime() + 3_600_000) },
    );
    expect(ids(during.host)).not.toContain(`tls.certificate-expired@${server.port}`);
    const off = await scan('127.0.0.1', [server.port], { tlsChecks: false });
    expect(off.host.checks.filter((c) => c.checkId.startsWith('tls.'))).toEqual([]);
    expect(host.tlsChecked).toBe(true);
    expect(off.host.tlsChecked).toBe(false);
  });

  it('TLS on an address target: the certificate is checked against the address, as web scans do', async () => {
    const named = makeCertificate({ commonName: 'tls.test', altNames: ['DNS:tls.test'] });
    const withAddress = makeCertificate({
      commonName: 'tls.test',
      altNames: ['DNS:tls.test', 'IP:127.0.0.1'],
    });
    const answer = (socket: import('node:net').Socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\n\r\n'));
    const wrong = keep(await tcpServer('127.0.0.1', answer, named));
    const right = keep(await tcpServer('127.0.0.1', answer, withAddress));
    const during = { now: () => new Date(named.notBefore.getTime() + 3_600_000) };
    const { host } = await scan('127.0.0.1', [wrong.port, right.port], {}, during);
    const mismatch = host.checks.filter((c) => c.checkId === 'tls.certificate-name-mismatch');
    expect(mismatch.map((c) => c.port)).toEqual([wrong.port]);
    expect(mismatch[0]?.evidence).toBe('Reached as 127.0.0.1; certificate names: CN=tls.test, DNS:tls.test');
    // Reached by a name the certificate carries: no mismatch.
    const byName = await scan(
      '127.0.0.1',
      [wrong.port],
      {},
      { ...during, hostnames: new Map([['127.0.0.1', 'tls.test']]) },
    );
    expect(byName.host.checks.map((c) => c.checkId)).not.toContain('tls.certificate-name-mismatch');
  });
});

describe('budgets, abort and refusals', () => {
  it('a host that runs out of budget keeps its results and lists the ports not reached', async () => {
    let clock = 0;
    // Each connection "takes" ten seconds on the injected clock.
    const silent = await Promise.all(
      [1, 2, 3].map(() =>
        tcpServer('127.0.0.1', () => {
          clock += 10_000;
        }),
      ),
    );
    for (const s of silent) keep(s);
    const ports = silent.map((s) => s.port).sort((a, b) => a - b);
    const { host } = await scan(
      '127.0.0.1',
      ports,
      { perHostInFlight: 1, portBudgetMs: 20_000, hostBudgetMs: 60_000 },
      { monotonic: () => clock },
    );
    expect(host.openPorts).toEqual(ports);
    expect(host.budgetExhausted).toBe('host');
    expect(host.unscannedPorts.length).toBeGreaterThanOrEqual(1);
    expect(host.unscannedPorts.every((p) => ports.includes(p))).toBe(true);
    expect(host.unscannedPorts).toContain(ports[2]);
  });

  it('a silent port that outlasts its port budget is cut: budgetExhausted port', async () => {
    let clock = 0;
    const silent = keep(
      await tcpServer('127.0.0.1', () => {
        clock += 15_000;
      }),
    );
    const { host } = await scan(
      '127.0.0.1',
      [silent.port],
      { portBudgetMs: 20_000 },
      { monotonic: () => clock },
    );
    expect(host.budgetExhausted).toBe('port');
    expect(host.unscannedPorts).toEqual([]);
    expect(host.services).toEqual([]);
  });

  it('the run budget: hosts after it is spent are not scanned', async () => {
    let clock = 0;
    const a = keep(
      await tcpServer('127.0.0.1', () => {
        clock += 50_000;
      }),
    );
    const hosts: SystemHostResult[] = [];
    const result = await systemScan(
      ['127.0.0.1', '127.0.0.2', '127.0.0.3'],
      template({ ports: String(a.port), runBudgetMs: 30_000, maxInFlight: 1, perHostInFlight: 1 }),
      {
        signal: new AbortController().signal,
        check: () => null,
        now: () => NOW,
        monotonic: () => clock,
        onHost: (h) => {
          hosts.push(h);
        },
      },
    );
    expect(result.budgetExhausted).toBe('run');
    expect(result.scanned).toBeLessThan(3);
    expect(hosts[0]!.budgetExhausted).toBe('run');
  });

  it('abort stops the scan at once and rejects with the reason', async () => {
    const controller = new AbortController();
    const silent = keep(await tcpServer('127.0.0.1', () => controller.abort(new Error('stopped by test'))));
    const hosts: SystemHostResult[] = [];
    await expect(
      systemScan(['127.0.0.1'], template({ ports: String(silent.port) }), {
        signal: controller.signal,
        check: () => null,
        now: () => NOW,
        onHost: (h) => {
          hosts.push(h);
        },
      }),
    ).rejects.toThrow('stopped by test');
    expect(hosts).toEqual([]);
  });

  it('a refused address gets no packet', async () => {
    const listener = keep(await tcpServer('127.0.0.1', () => undefined));
    const refused: Array<[string, TargetRefusal]> = [];
    const hosts: SystemHostResult[] = [];
    const result = await systemScan(
      ['127.0.0.1', 'not-an-address'],
      template({ ports: String(listener.port) }),
      {
        signal: new AbortController().signal,
        check: (address) => ({ rule: 'NotAllowed', message: `${address} is not allowed` }),
        now: () => NOW,
        onHost: (h) => {
          hosts.push(h);
        },
        onRefused: (address, refusal) => refused.push([address, refusal]),
      },
    );
    expect(result).toEqual({ scanned: 0, refused: 2, budgetExhausted: null });
    expect(listener.accepted).toBe(0);
    expect(hosts).toEqual([]);
    expect(refused.map(([a, r]) => [a, r.rule])).toEqual([
      ['127.0.0.1', 'NotAllowed'],
      ['not-an-address', 'Syntax'],
    ]);
  });

  it('portsOverride replaces the template ports, and a bad one is refused naming it', async () => {
    const redis = keep(await redisServer());
    const { host } = await scan('127.0.0.1', [1], {}, { portsOverride: String(redis.port) });
    expect(host.openPorts).toEqual([redis.port]);
    await expect(scan('127.0.0.1', [1], {}, { portsOverride: '0-5' })).rejects.toThrow(/portsOverride/);
  });
});

describe('validateSystemTemplate', () => {
  it('accepts a good template, top1000 and all', () => {
    expect(() => validateSystemTemplate(template({ ports: 'top1000' }))).not.toThrow();
    expect(() => validateSystemTemplate(template({ ports: 'all' }))).not.toThrow();
  });

  it.each([
    ['ports', 22, /ports must be text/],
    ['ports', 'top10', /ports is not a port list/],
    ['ports', '70000', /ports is not a port list/],
    ['timeoutMs', 0, /timeoutMs must be an integer/],
    ['timeoutMs', 1.5, /timeoutMs/],
    ['retries', -1, /retries/],
    ['retries', 11, /retries/],
    ['maxInFlight', '4', /maxInFlight/],
    ['connectionsPerSecond', 0, /connectionsPerSecond/],
    ['connectionsPerSecond', Number.NaN, /connectionsPerSecond/],
    ['perHostInFlight', 0, /perHostInFlight/],
    ['portBudgetMs', -5, /portBudgetMs/],
    ['hostBudgetMs', null, /hostBudgetMs/],
    ['runBudgetMs', 86_400_001, /runBudgetMs/],
    ['serviceDetection', 'yes', /serviceDetection must be true or false/],
    ['tlsChecks', 1, /tlsChecks/],
    ['safeChecks', undefined, /safeChecks/],
    ['useNmapVersionDetection', null, /useNmapVersionDetection/],
  ])('refuses %s = %j', (field, value, message) => {
    const bad = { ...template(), [field]: value };
    expect(() => validateSystemTemplate(bad)).toThrow(RangeError);
    expect(() => validateSystemTemplate(bad)).toThrow(message);
  });

  it('refuses what is not an object', () => {
    for (const bad of [null, 'x', [], 5])
      expect(() => validateSystemTemplate(bad)).toThrow(/must be an object/);
  });
});

describe('system scans of several hosts', () => {
  it('examines hosts at once: two services that each answer only once the other is being examined are both identified', async () => {
    // A port-scan probe is reset at once; an examining connection stays open waiting for a banner.
    // Each server marks itself examined when a connection is still open after 200 ms, and sends
    // its banner only once the other is examined too. One host after the other, the first would
    // wait in vain (and not be identified); at once, both are.
    const examined = new Set<string>();
    const serve = (self: string, other: string) => (socket: import('node:net').Socket) => {
      setTimeout(() => {
        if (socket.destroyed) return;
        examined.add(self);
        const started = Date.now();
        const send = () => {
          if (socket.destroyed) return;
          if (examined.has(other)) socket.write('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n');
          else if (Date.now() - started < 5000) setTimeout(send, 20);
        };
        send();
      }, 200);
    };
    const a = keep(await tcpServer('127.0.0.2', serve('a', 'b')));
    const b = keep(await tcpServer('127.0.0.3', serve('b', 'a')));
    const hosts: SystemHostResult[] = [];
    await systemScan(
      ['127.0.0.2', '127.0.0.3'],
      template({ ports: `${a.port},${b.port}`, tlsChecks: false }),
      {
        signal: new AbortController().signal,
        check: () => null,
        now: () => NOW,
        onHost: (h) => {
          hosts.push(h);
        },
      },
    );
    const product = (address: string) =>
      hosts.find((h) => h.address === address)?.services.map((s) => `${s.product} ${s.version}`);
    expect(product('127.0.0.2')).toEqual(['OpenSSH 9.2p1']);
    expect(product('127.0.0.3')).toEqual(['OpenSSH 9.2p1']);
  });
});
