// A network lab for scanning tests: a bridge in the root namespace holding the gateway address,
// and one network namespace per test host with a veth into the bridge, on a /24 inside
// 198.18.0.0/15 (RFC 2544 benchmarking space, routed nowhere else) that is only ever routed into
// this bridge. Some hosts run real daemons from Debian packages, some drop probes with nftables,
// some are down. Each lab takes its own /24 with an exclusive lock directory, so parallel test
// files never collide; labs left by dead processes are swept away. Needs root and iproute2.

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The /24s of 198.18.0.0/15: 198.18.0.0/24 … 198.19.255.0/24. */
const LAB_SLOTS = 512;
const LOCK_PREFIX = 'rampart-lab-';

export type LabDaemon = 'sshd' | 'nginx' | 'http';

/** Where each daemon listens. */
export const DAEMON_PORTS: Record<LabDaemon, number> = { sshd: 22, nginx: 80, http: 8080 };

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
  teardown(): void;
}

/** Root, network namespaces and the tools of the lab. */
export function labAvailable(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  return ['ip', 'nft', 'sshd', 'ssh-keygen', 'nginx', 'dnsmasq', 'python3'].every(commandExists);
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

export async function createLab(specs: LabHostSpec[]): Promise<Lab> {
  if (!labAvailable()) throw new Error('the lab needs root, iproute2, nftables and the daemons');
  sweepStaleLabs();
  const slot = claimSlot();
  const n = names(slot);
  const prefix = subnetOf(slot);
  const gateway = `${prefix}.1`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rampart-lab-files-${slot}-`));
  const children: ChildProcess[] = [];
  const hosts = new Map<string, LabHost>();
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

  const start = (what: string, file: string, args: string[], namespace: string | null) => {
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
      teardown,
    };
  } catch (error) {
    teardown();
    throw error;
  }

  async function startDaemon(host: LabHost, daemon: LabDaemon) {
    const own = path.join(dir, `${host.spec.name}-${daemon}`);
    fs.mkdirSync(own, { recursive: true });
    const port = DAEMON_PORTS[daemon];
    let started: ReturnType<typeof start>;
    if (daemon === 'sshd') {
      fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
      const key = path.join(own, 'host_ed25519');
      run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
      const config = path.join(own, 'sshd_config');
      fs.writeFileSync(
        config,
        [
          `Port ${port}`,
          `ListenAddress ${host.address}`,
          `HostKey ${key}`,
          `PidFile ${own}/sshd.pid`,
          'UsePAM no',
          '',
        ].join('\n'),
      );
      started = start('sshd', '/usr/sbin/sshd', ['-D', '-e', '-f', config], host.namespace);
    } else if (daemon === 'nginx') {
      const config = path.join(own, 'nginx.conf');
      const temp = (what: string) => `${what}_temp_path ${own}/${what};`;
      fs.writeFileSync(
        config,
        `daemon off; master_process off; pid ${own}/nginx.pid; error_log ${own}/error.log;
events { worker_connections 64; }
http { access_log off; ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')}
  server { listen ${host.address}:${port}; location / { return 200 "lab\\n"; } } }
`,
      );
      started = start(
        'nginx',
        '/usr/sbin/nginx',
        ['-e', `${own}/error.log`, '-p', own, '-c', config],
        host.namespace,
      );
    } else {
      started = start(
        'http.server',
        'python3',
        ['-m', 'http.server', String(port), '--bind', host.address, '--directory', own],
        host.namespace,
      );
    }
    await waitForListen(host.namespace, port, `${daemon} on ${host.spec.name}`, started.child, started.log);
  }
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
