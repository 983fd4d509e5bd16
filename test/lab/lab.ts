// A network lab for scanning tests: a bridge in the root namespace holding the gateway address,
// and one network namespace per test host with a veth into the bridge, on a /24 inside
// 198.18.0.0/15 (RFC 2544 benchmarking space, routed nowhere else) that is only ever routed into
// this bridge. Some hosts run real daemons from Debian packages, some drop probes with nftables,
// some are down. Web and database daemons come with the weaknesses scans must find (legacy TLS, an
// expired self-signed certificate, exposed files, Redis without a password). Each lab takes its own /24 with an exclusive lock directory, so parallel test
// files never collide; labs left by dead processes are swept away. Needs root and iproute2.

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Clock, systemClock } from '../../src/lib/clock.js';

/** The /24s of 198.18.0.0/15: 198.18.0.0/24 … 198.19.255.0/24. */
const LAB_SLOTS = 512;
const LOCK_PREFIX = 'rampart-lab-';

export type LabDaemon =
  | 'sshd'
  | 'sshd-weak'
  | 'nginx'
  | 'http'
  | 'redis'
  | 'nginx-legacy-tls'
  | 'nginx-soft404'
  | 'nginx-autoindex'
  | 'nginx-autoindex-clean'
  | 'vsftpd-anonymous'
  | 'vsftpd';

/** Where each daemon listens. */
export const DAEMON_PORTS: Record<LabDaemon, readonly number[]> = {
  sshd: [22],
  nginx: [80],
  http: [8080],
  redis: [6379],
  'nginx-legacy-tls': [443, 80],
  'nginx-soft404': [80],
  'nginx-autoindex': [80],
  'nginx-autoindex-clean': [80],
  'sshd-weak': [22],
  'vsftpd-anonymous': [21],
  vsftpd: [21],
};

/** The first 400 days, counted back from the lab's start, of an expired certificate's life. */
const EXPIRED_LIFETIME_DAYS = 400;
/** How long before the lab's start the legacy host's certificate expired. */
const EXPIRED_SINCE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface CertificateValidity {
  notBefore: Date;
  notAfter: Date;
}

export interface LabHostSpec {
  /** Short name, unique in the lab. */
  name: string;
  /** The last byte of its address (2–254; 1 is the gateway). */
  index: number;
  /** up (default); down: no namespace at all; link-down: a namespace whose link is down. */
  state?: 'up' | 'down' | 'link-down';
  daemons?: LabDaemon[];
  /** TCP ports whose packets the host drops (nftables): filtered. */
  dropPorts?: number[];
  /** Drop every TCP packet: the host answers only ARP. */
  dropAllTcp?: boolean;
  /** PTR name served by the lab's DNS server. */
  hostname?: string;
  /**
   * nginx-legacy-tls: the validity of its self-signed certificate. By default it expired 30 days
   * before the lab's clock said the lab started, after 400 days.
   */
  certificate?: CertificateValidity;
}

export interface LabOptions {
  /** The time that certificates are made relative to; the tests' own clock. */
  clock?: Clock;
}

export interface LabHost {
  spec: LabHostSpec;
  address: string;
  mac: string;
  namespace: string;
}

export interface Lab {
  /** e.g. 198.18.7.0/24 */
  subnet: string;
  gateway: string;
  bridge: string;
  hosts: Map<string, LabHost>;
  /** Every address of the /24 but network and broadcast (.1–.254). */
  addresses(): string[];
  /** address → PTR names, for the engine's resolver (the lab's dnsmasq), or null without names. */
  dnsServer: string | null;
  /** Throws unless every address of the /24 leaves through the lab bridge (`ip route get`). */
  assertRoutedIntoLab(): void;
  /**
   * IPv4 packets to the host's address and ARP requests for it that reached the host since the
   * lab was ready (nftables counters in its namespace).
   */
  packetsReceived(name: string): { ip: number; arp: number };
  /** Takes a host away: its daemons stop, its namespace and link go. */
  removeHost(name: string): void;
  /**
   * An nginx-legacy-tls host's nginx restarts with TLS 1.2 and 1.3 only and OpenSSL's default
   * ciphers (same site, same certificate); resolves once it listens again.
   */
  disableLegacyTls(name: string): Promise<void>;
  /** Deletes `.git/` from an nginx-legacy-tls host's document root (it answers 404 from then on). */
  removeGitDirectory(name: string): void;
  teardown(): void;
}

/** Root, network namespaces and the tools of the lab. */
export function labAvailable(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  return [
    'ip',
    'nft',
    'sshd',
    'ssh-keygen',
    'nginx',
    'dnsmasq',
    'python3',
    'redis-server',
    'openssl',
    'vsftpd',
  ].every(commandExists);
}

export function commandExists(name: string): boolean {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin'];
  return dirs.some((d) => d !== '' && fs.existsSync(path.join(d, name)));
}

function run(file: string, args: string[], input?: string): string {
  try {
    return execFileSync(file, args, { input, stdio: ['pipe', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`${file} ${args.join(' ')} failed: ${stderr.trim() || (error as Error).message}`);
  }
}

function tryRun(file: string, args: string[]): void {
  spawnSync(file, args, { stdio: 'ignore' });
}

const names = (slot: number) => ({
  bridge: `rlab${slot}`,
  namespace: (index: number) => `rlab${slot}-h${index}`,
  veth: (index: number) => `rl${slot}h${index}`,
  lock: path.join(os.tmpdir(), `${LOCK_PREFIX}${slot}`),
});

function subnetOf(slot: number): string {
  return `198.${18 + (slot >> 8)}.${slot & 255}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the lab of `slot`: processes in its namespaces, the namespaces, the bridge, its files. */
function destroySlot(slot: number): void {
  const n = names(slot);
  const namespaces = run('ip', ['netns', 'list'])
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((ns) => ns.startsWith(`${n.bridge}-h`));
  for (const ns of namespaces) {
    for (const pid of run('ip', ['netns', 'pids', ns]).split('\n').filter(Boolean))
      tryRun('kill', ['-9', pid]);
    tryRun('ip', ['netns', 'del', ns]);
  }
  tryRun('ip', ['link', 'del', n.bridge]);
  const state = path.join(n.lock, 'state.json');
  if (fs.existsSync(state)) {
    const { pids, dir } = JSON.parse(fs.readFileSync(state, 'utf8')) as { pids: number[]; dir: string };
    for (const pid of pids) if (alive(pid)) tryRun('kill', ['-9', String(pid)]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.rmSync(n.lock, { recursive: true, force: true });
}

/** Sweeps labs whose process is gone (a crashed or killed test run). */
export function sweepStaleLabs(): void {
  for (const entry of fs.readdirSync(os.tmpdir())) {
    if (!entry.startsWith(LOCK_PREFIX)) continue;
    const slot = Number(entry.slice(LOCK_PREFIX.length));
    if (!Number.isInteger(slot) || slot < 0 || slot >= LAB_SLOTS) continue;
    const lock = path.join(os.tmpdir(), entry);
    const pidFile = path.join(lock, 'pid');
    if (fs.existsSync(pidFile)) {
      if (alive(Number(fs.readFileSync(pidFile, 'utf8')))) continue;
    } else if (Date.now() - fs.statSync(lock).mtimeMs < 60_000) {
      continue; // being created right now
    }
    destroySlot(slot);
  }
}

/** Takes a free /24 with an exclusive `mkdir` of its lock directory. */
function claimSlot(): number {
  const start = (process.pid * 7) % LAB_SLOTS;
  for (let i = 0; i < LAB_SLOTS; i++) {
    const slot = (start + i) % LAB_SLOTS;
    try {
      fs.mkdirSync(names(slot).lock);
    } catch {
      continue;
    }
    fs.writeFileSync(path.join(names(slot).lock, 'pid'), String(process.pid));
    return slot;
  }
  throw new Error('no free lab subnet in 198.18.0.0/15');
}

function macOf(slot: number, index: number): string {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  return `02:52:4c:${hex(slot >> 8)}:${hex(slot & 255)}:${hex(index)}`;
}

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/**
 * Waits until a daemon listens on `port` in its namespace, looking at its sockets from inside
 * (`ss`): no packet is sent, so the node has talked to no lab host before a test scans.
 */
async function waitForListen(
  namespace: string,
  port: number,
  what: string,
  child: ChildProcess,
  log: () => string,
) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}: ${log()}`);
    if (run('ip', ['netns', 'exec', namespace, 'ss', '-Hltn', `sport = :${port}`]).trim() !== '') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not start listening on port ${port}: ${log()}`);
}

export async function createLab(specs: LabHostSpec[], options: LabOptions = {}): Promise<Lab> {
  if (!labAvailable()) throw new Error('the lab needs root, iproute2, nftables and the daemons');
  sweepStaleLabs();
  const slot = claimSlot();
  const n = names(slot);
  const prefix = subnetOf(slot);
  const gateway = `${prefix}.1`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rampart-lab-files-${slot}-`));
  const children: ChildProcess[] = [];
  const hosts = new Map<string, LabHost>();
  const legacySites = new Map<string, LegacySite>();
  const clock = options.clock ?? systemClock;
  const saveState = () =>
    fs.writeFileSync(
      path.join(n.lock, 'state.json'),
      JSON.stringify({ dir, pids: children.map((c) => c.pid).filter(Boolean) }),
    );
  saveState();
  let tornDown = false;
  const teardown = () => {
    if (tornDown) return;
    tornDown = true;
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    destroySlot(slot);
    process.off('exit', teardown);
  };
  // A test process that dies without afterAll still takes its lab with it when it exits normally.
  process.on('exit', teardown);

  const start = (what: string, file: string, args: string[], namespace: string | null): Started => {
    const full = namespace ? ['netns', 'exec', namespace, file, ...args] : [file, ...args];
    const child = spawn(namespace ? 'ip' : file, namespace ? full : args, {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr!.on('data', (c: Buffer) => {
      if (log.length < 4000) log += c.toString();
    });
    child.on('error', (e) => {
      log += String(e);
    });
    children.push(child);
    saveState();
    return { child, log: () => `${what}: ${log.trim()}` };
  };

  try {
    run('ip', ['link', 'add', n.bridge, 'type', 'bridge']);
    run('ip', ['addr', 'add', `${gateway}/24`, 'dev', n.bridge]);
    run('ip', ['link', 'set', n.bridge, 'up']);
    tryRun('sysctl', ['-qw', `net.ipv6.conf.${n.bridge}.disable_ipv6=1`]);

    for (const spec of specs) {
      if (spec.index < 2 || spec.index > 254) throw new Error(`lab host ${spec.name}: index must be 2–254`);
      const host: LabHost = {
        spec,
        address: `${prefix}.${spec.index}`,
        mac: macOf(slot, spec.index),
        namespace: n.namespace(spec.index),
      };
      hosts.set(spec.name, host);
      if (spec.state === 'down') continue;
      addHost(host, n.veth(spec.index), n.bridge);
    }

    let dnsServer: string | null = null;
    const named = [...hosts.values()].filter((h) => h.spec.hostname);
    if (named.length > 0) {
      const hostsFile = path.join(dir, 'hosts');
      fs.writeFileSync(hostsFile, named.map((h) => `${h.address} ${h.spec.hostname}\n`).join(''));
      const port = await freeUdpPort();
      const dns = start(
        'dnsmasq',
        'dnsmasq',
        [
          '--keep-in-foreground',
          '--conf-file=/dev/null',
          '--no-resolv',
          '--no-hosts',
          `--addn-hosts=${hostsFile}`,
          '--listen-address=127.0.0.1',
          '--bind-interfaces',
          `--port=${port}`,
          '--user=root',
          `--pid-file=${path.join(dir, 'dnsmasq.pid')}`,
        ],
        null,
      );
      dnsServer = `127.0.0.1:${port}`;
      // dnsmasq reads its hosts file before it binds; give it the moment to come up.
      await new Promise((r) => setTimeout(r, 300));
      if (dns.child.exitCode !== null) throw new Error(`dnsmasq exited: ${dns.log()}`);
    }

    for (const host of hosts.values()) {
      if (host.spec.state && host.spec.state !== 'up') continue;
      for (const daemon of host.spec.daemons ?? []) await startDaemon(host, daemon);
    }
    // The counters and the node's neighbour table start from here (nothing was sent to a lab
    // host yet; this makes sure), so that a scan has to ask ARP itself.
    for (const host of hosts.values())
      if (!host.spec.state || host.spec.state === 'up')
        run('ip', ['netns', 'exec', host.namespace, 'nft', 'reset', 'counters']);
    run('ip', ['neigh', 'flush', 'dev', n.bridge]);

    return {
      subnet: `${prefix}.0/24`,
      gateway,
      bridge: n.bridge,
      hosts,
      dnsServer,
      addresses: () => Array.from({ length: 254 }, (_, i) => `${prefix}.${i + 1}`),
      assertRoutedIntoLab: () => {
        for (let i = 1; i <= 254; i++) {
          const address = `${prefix}.${i}`;
          const [route] = JSON.parse(run('ip', ['-j', 'route', 'get', address])) as Array<{
            type?: string;
            dev?: string;
            gateway?: string;
          }>;
          // The gateway is the node's own address on the bridge: delivered locally, sent nowhere.
          if (address === gateway && route?.type === 'local' && route.dev === 'lo') continue;
          if (route?.dev !== n.bridge || route.gateway)
            throw new Error(
              `${address} would leave through ${route?.dev} (via ${route?.gateway}), not ${n.bridge}`,
            );
        }
      },
      packetsReceived: (name) => {
        const host = hosts.get(name);
        if (!host) throw new Error(`no lab host ${name}`);
        const counter = (family: string) => {
          const out = JSON.parse(
            run('ip', [
              'netns',
              'exec',
              host.namespace,
              'nft',
              '-j',
              'list',
              'counter',
              family,
              'lab',
              'seen',
            ]),
          ) as { nftables: Array<{ counter?: { packets: number } }> };
          return out.nftables.find((e) => e.counter)?.counter?.packets ?? 0;
        };
        return { ip: counter('ip'), arp: counter('arp') };
      },
      removeHost: (name) => {
        const host = hosts.get(name);
        if (!host) throw new Error(`no lab host ${name}`);
        for (const pid of run('ip', ['netns', 'pids', host.namespace]).split('\n').filter(Boolean))
          tryRun('kill', ['-9', pid]);
        run('ip', ['netns', 'del', host.namespace]);
        // A host gone for minutes has no confirmed neighbour entry left; the test does not wait
        // out the kernel's reachable time (15–45 s), it forgets the entry as that time would.
        tryRun('ip', ['neigh', 'del', host.address, 'dev', n.bridge]);
        hosts.delete(name);
      },
      disableLegacyTls,
      removeGitDirectory,
      teardown,
    };
  } catch (error) {
    teardown();
    throw error;
  }

  async function startDaemon(host: LabHost, daemon: LabDaemon) {
    const own = path.join(dir, `${host.spec.name}-${daemon}`);
    fs.mkdirSync(own, { recursive: true });
    const started = launch(host, daemon, own);
    await waitForPorts(host, daemon, started);
  }

  async function waitForPorts(host: LabHost, daemon: LabDaemon, started: Started) {
    for (const port of DAEMON_PORTS[daemon])
      await waitForListen(host.namespace, port, `${daemon} on ${host.spec.name}`, started.child, started.log);
  }

  function launch(host: LabHost, daemon: LabDaemon, own: string): Started {
    const address = host.address;
    switch (daemon) {
      case 'sshd':
        return startSshd(host, own);
      case 'sshd-weak':
        return startSshd(host, own, WEAK_SSHD_OPTIONS);
      case 'nginx-autoindex':
        return startAutoindex(host, own, AUTOINDEX_FILES, ['old-site.bak']);
      case 'nginx-autoindex-clean':
        return startAutoindex(host, own, CLEAN_AUTOINDEX_FILES, []);
      case 'vsftpd-anonymous':
        return startVsftpd(host, own, true);
      case 'vsftpd':
        return startVsftpd(host, own, false);
      case 'nginx':
        return startNginx(host, own, `server { listen ${address}:80; location / { return 200 "lab\\n"; } }`);
      case 'nginx-legacy-tls': {
        makeLegacySite(host, own, host.spec.certificate ?? expiredValidity(clock()));
        const started = startNginx(host, own, legacyServers(host, own, true));
        legacySites.set(host.spec.name, { host, own, started });
        return started;
      }
      case 'nginx-soft404': {
        const www = path.join(own, 'www');
        fs.mkdirSync(www);
        fs.writeFileSync(path.join(www, 'index.html'), SOFT404_PAGE);
        // Every path that is no file answers 200 with the start page, as single-page apps do.
        return startNginx(
          host,
          own,
          `server { listen ${address}:80; root ${www}; location / { try_files $uri /index.html; } }`,
        );
      }
      case 'redis':
        return start(
          'redis',
          'redis-server',
          [
            '--bind',
            address,
            '--port',
            '6379',
            '--protected-mode',
            'no',
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            own,
            '--logfile',
            path.join(own, 'redis.log'),
          ],
          host.namespace,
        );
      case 'http':
        return start(
          'http.server',
          'python3',
          ['-m', 'http.server', '8080', '--bind', address, '--directory', own],
          host.namespace,
        );
    }
  }

  /** Debian's sshd with its defaults; `extra` adds an RSA host key and options after them. */
  function startSshd(host: LabHost, own: string, extra: string[] = []): Started {
    fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const key = path.join(own, 'host_ed25519');
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    const keys = [`HostKey ${key}`];
    if (extra.length > 0) {
      const rsa = path.join(own, 'host_rsa');
      run('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', rsa]);
      keys.push(`HostKey ${rsa}`);
    }
    const config = path.join(own, 'sshd_config');
    fs.writeFileSync(
      config,
      [
        `Port 22`,
        `ListenAddress ${host.address}`,
        ...keys,
        `PidFile ${own}/sshd.pid`,
        'UsePAM no',
        ...extra,
        '',
      ].join('\n'),
    );
    return start('sshd', '/usr/sbin/sshd', ['-D', '-e', '-f', config], host.namespace);
  }

  /** One nginx in the foreground, single process, with its files in `own`. */
  function startNginx(host: LabHost, own: string, servers: string): Started {
    const config = path.join(own, 'nginx.conf');
    const temp = (what: string) => `${what}_temp_path ${own}/${what};`;
    fs.writeFileSync(
      config,
      `daemon off; master_process off; pid ${own}/nginx.pid; error_log ${own}/error.log;
events { worker_connections 64; }
http { access_log off; server_tokens on; include /etc/nginx/mime.types; default_type application/octet-stream;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')}
  ${servers} }
`,
    );
    return start(
      'nginx',
      '/usr/sbin/nginx',
      ['-e', `${own}/error.log`, '-p', own, '-c', config],
      host.namespace,
    );
  }

  /**
   * nginx listing a directory with no index page (`autoindex on`): `files` in its root, of which
   * `forbidden` are listed but answer 403.
   */
  function startAutoindex(
    host: LabHost,
    own: string,
    files: Record<string, string | Buffer>,
    forbidden: string[],
  ): Started {
    const www = path.join(own, 'www');
    fs.mkdirSync(www);
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(www, name)), { recursive: true });
      fs.writeFileSync(path.join(www, name), content);
    }
    const denied = forbidden.map((f) => `location = /${f} { return 403; }`).join(' ');
    return startNginx(
      host,
      own,
      `server { listen ${host.address}:80; root ${www}; location / { autoindex on; } ${denied} }`,
    );
  }

  /**
   * Debian's vsftpd in the foreground: anonymous logins allowed (read-only, its root a directory
   * holding one file) or refused (local users only, through PAM, so `anonymous` gets 530).
   */
  function startVsftpd(host: LabHost, own: string, anonymous: boolean): Started {
    const root = path.join(own, 'ftp');
    const empty = path.join(own, 'empty');
    fs.mkdirSync(root);
    fs.mkdirSync(empty);
    // The anonymous user (Debian's `ftp`) must reach its root, and may write nowhere.
    for (const d of [own, root, empty]) fs.chmodSync(d, 0o755);
    fs.writeFileSync(path.join(root, 'README'), 'lab ftp\n');
    const config = path.join(own, 'vsftpd.conf');
    fs.writeFileSync(
      config,
      [
        'listen=YES',
        'listen_ipv6=NO',
        `listen_address=${host.address}`,
        'listen_port=21',
        'background=NO',
        `anonymous_enable=${anonymous ? 'YES' : 'NO'}`,
        `local_enable=${anonymous ? 'NO' : 'YES'}`,
        'pam_service_name=vsftpd',
        'write_enable=NO',
        `anon_root=${root}`,
        `secure_chroot_dir=${empty}`,
        'xferlog_enable=NO',
        // A test daemon needs none of vsftpd's own sandboxing, which containers often refuse.
        'seccomp_sandbox=NO',
        'isolate=NO',
        'isolate_network=NO',
        `vsftpd_log_file=${own}/vsftpd.log`,
        '',
      ].join('\n'),
    );
    return start('vsftpd', '/usr/sbin/vsftpd', [config], host.namespace);
  }

  function legacySite(name: string): LegacySite {
    const site = legacySites.get(name);
    if (!site) throw new Error(`lab host ${name} runs no nginx-legacy-tls`);
    return site;
  }

  async function disableLegacyTls(name: string) {
    const site = legacySite(name);
    const old = site.started.child;
    if (old.exitCode === null) {
      const exited = new Promise((resolve) => old.once('exit', resolve));
      old.kill('SIGTERM');
      await exited;
    }
    site.started = startNginx(site.host, site.own, legacyServers(site.host, site.own, false));
    await waitForPorts(site.host, 'nginx-legacy-tls', site.started);
  }

  function removeGitDirectory(name: string) {
    fs.rmSync(path.join(legacySite(name).own, 'www', '.git'), { recursive: true });
  }
}

type Started = { child: ChildProcess; log: () => string };

/** An nginx-legacy-tls host's files and the nginx that serves them now. */
interface LegacySite {
  host: LabHost;
  own: string;
  started: Started;
}

const LEGACY_PAGE =
  '<!doctype html><html><head><title>Legacy</title></head><body>legacy lab site</body></html>\n';
const SOFT404_PAGE =
  '<!doctype html><html><head><title>App</title></head><body>every path is this page</body></html>\n';

/**
 * sshd-weak: what old configurations still turn back on in OpenSSH 9.2 — SHA-1 key exchange, SHA-1
 * RSA host-key signatures, CBC ciphers and MD5 MACs — after the defaults.
 */
const WEAK_SSHD_OPTIONS = [
  'KexAlgorithms +diffie-hellman-group14-sha1',
  'HostKeyAlgorithms +ssh-rsa',
  'Ciphers +aes128-cbc',
  'MACs +hmac-md5',
];

/** nginx-autoindex: a listing with a database dump, an archive and a backup next to harmless files. */
const AUTOINDEX_FILES: Record<string, string | Buffer> = {
  'backup.sql': '-- PostgreSQL database dump\nCREATE TABLE users (id int, password text);\n',
  'site-2031-05-01.tar.gz': Buffer.from([
    0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  ]),
  'old-site.bak': 'listed, but nginx answers 403 for it\n',
  'readme.txt': 'downloads\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
};

/** nginx-autoindex-clean: a listing with nothing that looks like a backup (a negative control). */
const CLEAN_AUTOINDEX_FILES: Record<string, string | Buffer> = {
  'readme.txt': 'downloads\n',
  'style.css': 'body { margin: 0 }\n',
  'images/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'sqlite-notes.html': '<!doctype html><title>notes</title>\n',
};

/** Expired before `now`: valid for 400 days until 30 days ago. */
export function expiredValidity(now: Date): CertificateValidity {
  const notAfter = new Date(now.getTime() - EXPIRED_SINCE_DAYS * DAY_MS);
  return { notBefore: new Date(notAfter.getTime() - EXPIRED_LIFETIME_DAYS * DAY_MS), notAfter };
}

/**
 * The legacy site's files: a self-signed certificate with the given validity (made with
 * `openssl ca -selfsign`, which takes start and end dates in the past), and a document root with
 * a Git directory and a `.env` left in it.
 */
function makeLegacySite(host: LabHost, own: string, validity: CertificateValidity) {
  const www = path.join(own, 'www');
  fs.mkdirSync(path.join(www, '.git'), { recursive: true });
  fs.writeFileSync(path.join(www, 'index.html'), LEGACY_PAGE);
  fs.writeFileSync(path.join(www, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(
    path.join(www, '.git', 'config'),
    '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n',
  );
  fs.writeFileSync(path.join(www, '.env'), 'APP_ENV=production\nDB_HOST=db\nDB_PASSWORD=lab-not-a-secret\n');
  selfSignedCertificate(own, host.spec.hostname ?? `${host.spec.name}.lab.test`, host.address, validity);
}

/** `own/cert.pem` and `own/key.pem`: RSA 2048, CN `name`, subjectAltName the name and `address`. */
function selfSignedCertificate(own: string, name: string, address: string, validity: CertificateValidity) {
  const ca = path.join(own, 'ca');
  fs.mkdirSync(ca);
  fs.writeFileSync(path.join(ca, 'index.txt'), '');
  fs.writeFileSync(path.join(ca, 'serial'), `${Date.now().toString(16).padStart(16, '0')}\n`);
  const config = path.join(ca, 'ca.cnf');
  fs.writeFileSync(
    config,
    `[ca]
default_ca = lab
[lab]
database = ${ca}/index.txt
new_certs_dir = ${ca}
serial = ${ca}/serial
default_md = sha256
policy = anything
unique_subject = no
[anything]
commonName = supplied
[site]
basicConstraints = critical, CA:FALSE
subjectAltName = DNS:${name}, IP:${address}
`,
  );
  const key = path.join(own, 'key.pem');
  const request = path.join(ca, 'request.csr');
  run('openssl', [
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-subj',
    `/CN=${name}`,
    '-out',
    request,
  ]);
  run('openssl', [
    'ca',
    '-batch',
    '-config',
    config,
    '-selfsign',
    '-keyfile',
    key,
    '-in',
    request,
    '-out',
    path.join(own, 'cert.pem'),
    '-startdate',
    opensslDate(validity.notBefore),
    '-enddate',
    opensslDate(validity.notAfter),
    '-extfile',
    config,
    '-extensions',
    'site',
    '-notext',
  ]);
}

/** YYYYMMDDHHMMSSZ, as `openssl ca -startdate/-enddate` take it. */
function opensslDate(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace(/[-T:]/g, '')}Z`;
}

/**
 * The legacy site on 443 (TLS) and 80 (the same site, no redirect), no security headers, the
 * version in the Server header. `legacy`: TLS 1.0–1.2 with every cipher OpenSSL still has at
 * security level 0 (OpenSSL 3 refuses TLS 1.0 and 1.1 above it); otherwise TLS 1.2 and 1.3 with
 * nginx's default ciphers.
 */
function legacyServers(host: LabHost, own: string, legacy: boolean): string {
  const tls = legacy
    ? 'ssl_protocols TLSv1 TLSv1.1 TLSv1.2; ssl_ciphers DEFAULT:@SECLEVEL=0;'
    : 'ssl_protocols TLSv1.2 TLSv1.3; ssl_ciphers HIGH:!aNULL:!MD5;';
  return `server { listen ${host.address}:443 ssl; listen ${host.address}:80;
    ssl_certificate ${own}/cert.pem; ssl_certificate_key ${own}/key.pem; ${tls}
    root ${own}/www; index index.html; }`;
}

/** One namespace with its veth into the bridge, its address, MAC, link state and drop rules. */
function addHost(host: LabHost, veth: string, bridge: string) {
  const ns = host.namespace;
  const inNs = (...args: string[]) => run('ip', ['netns', 'exec', ns, ...args]);
  run('ip', ['netns', 'add', ns]);
  run('ip', ['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
  run('ip', ['link', 'set', veth, 'master', bridge, 'up']);
  inNs('sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1');
  inNs('ip', 'link', 'set', 'lo', 'up');
  inNs('ip', 'link', 'set', 'eth0', 'address', host.mac);
  inNs('ip', 'addr', 'add', `${host.address}/24`, 'dev', 'eth0');
  if (host.spec.state !== 'link-down') inNs('ip', 'link', 'set', 'eth0', 'up');
  const drops = [
    ...(host.spec.dropAllTcp ? ['meta l4proto tcp drop'] : []),
    ...(host.spec.dropPorts?.length ? [`tcp dport { ${host.spec.dropPorts.join(', ')} } drop`] : []),
  ];
  // Counters of what reaches the host (IPv4 to its address, and ARP), then the drop rules.
  const rules = `
table ip lab {
  counter seen {}
  chain input {
    type filter hook input priority 0; policy accept;
    ip daddr ${host.address} counter name seen
    ${drops.join('\n    ')}
  }
}
table arp lab {
  counter seen {}
  chain input {
    type filter hook input priority 0; policy accept;
    # Requests only: a reply to the host's own request (for the gateway) also names its address.
    arp operation request arp daddr ip ${host.address} counter name seen
  }
}
`;
  run('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], rules);
}
