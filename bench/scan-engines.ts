/**
 * bench:scan, part 2: the port scanner, the system engine and the web engine on a lab of real
 * daemons (test/lab), each against its baseline measured in the same run. Each Rampart run is a
 * child process (this file with --child) so that its peak RSS is the engine's alone. Traffic goes
 * only to the lab, which is first proved to be routed only into its bridge.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ALL_PORTS, type HostPorts, type PortList, scanPorts } from '../src/scanning/ports/index.js';
import { createLab, type Lab, type LabHostSpec } from '../test/lab/lab.js';

/** What a child reports: its wall time, its memory, and what the engine found. */
interface ChildResult<T> {
  ms: number;
  maxRssMb: number;
  startRssMb: number;
  result: T;
}

interface PortsJob {
  address: string;
  ports: 'all' | number[];
  options: PortScanSettings;
}

/** The port scanner's pace and patience (a system template's, without the budgets). */
export interface PortScanSettings {
  timeoutMs: number;
  retries: number;
  maxInFlight: number;
  connectionsPerSecond: number;
  perHostInFlight: number;
}

const CHILD_MODES: Record<string, (job: never) => Promise<unknown>> = {
  ports: portsChild,
};

if (process.argv[2] === '--child') {
  const mode = CHILD_MODES[process.argv[3]!];
  if (!mode) throw new RangeError(`bench child: unknown mode ${process.argv[3]}`);
  const job = JSON.parse(process.argv[4]!) as never;
  const startRssMb = process.memoryUsage().rss / 1024 / 1024;
  const start = process.hrtime.bigint();
  const result = await mode(job);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMb, startRssMb, result })}\n`);
  process.exit(0);
}

/** One host's ports with scanPorts, allowed only that address. */
async function portsChild(job: PortsJob): Promise<HostPorts> {
  const ports: PortList = job.ports === 'all' ? ALL_PORTS : job.ports;
  let found: HostPorts | null = null;
  await scanPorts([job.address], ports, {
    ...job.options,
    signal: new AbortController().signal,
    check: (a) => (a === job.address ? null : { rule: 'NotAllowed', message: `${a} is not the bench host` }),
    onHost: (host) => {
      found = host;
    },
  });
  if (!found) throw new Error(`no result for ${job.address}`);
  return found;
}

function runChild<T>(mode: keyof typeof CHILD_MODES, job: unknown): Promise<ChildResult<T>> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const child = spawn(process.execPath, ['--import', 'tsx', script, '--child', mode, JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`bench child ${mode} exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult<T>);
    });
  });
}

/** Runs a command to its end (bounded), answering its stdout and wall time. */
function timed(file: string, args: string[], killAfterMs: number): Promise<{ ms: number; out: string }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      if (out.length < 8 * 1024 * 1024) out += c.toString();
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return reject(new Error(`${file} exited with ${code ?? signal}`));
      resolve({ ms, out });
    });
  });
}

/** Open TCP ports of one host in nmap's XML. */
function nmapOpenPorts(xml: string): number[] {
  return [...xml.matchAll(/<port protocol="tcp" portid="(\d+)"><state state="open"/g)].map((m) => Number(m[1]));
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (x: number) => `${x.toFixed(1)} MB`;

/** The lab of this part: one host per daemon, a host behind a wall and one with a dropped port. */
export const ENGINE_LAB: LabHostSpec[] = [
  { name: 'ssh', index: 10, daemons: ['sshd'] },
  { name: 'legacy', index: 20, daemons: ['nginx-legacy-tls'], hostname: 'legacy.lab.test' },
  { name: 'soft', index: 21, daemons: ['nginx-soft404'] },
  { name: 'redis', index: 22, daemons: ['redis'] },
  { name: 'wall', index: 30, dropAllTcp: true },
  { name: 'dropped', index: 31, daemons: ['sshd'], dropPorts: [8080] },
];

/** All 65,535 ports of one host: Rampart's scanner against `nmap -sT -p- -Pn -n`. */
async function allPorts(lab: Lab, label: string, settings: PortScanSettings) {
  const address = lab.hosts.get('legacy')!.address;
  const ours = await runChild<HostPorts>('ports', { address, ports: 'all', options: settings });
  const nmap = await timed('nmap', ['-sT', '-p-', '-Pn', '-n', '-oX', '-', address], 600_000);
  const theirs = nmapOpenPorts(nmap.out);
  console.log(
    `all 65,535 ports of one host (${label}): Rampart ${seconds(ours.ms)} (open ${ours.result.open.join(',')}, ` +
      `${ours.result.closed} closed, ${ours.result.filtered} filtered, peak RSS ${mb(ours.maxRssMb)}) | ` +
      `nmap -sT -p- ${seconds(nmap.ms)} (open ${theirs.join(',')}) | ratio nmap/Rampart ${(nmap.ms / ours.ms).toFixed(2)}`,
  );
  return { ours, nmapMs: nmap.ms, same: ours.result.open.join() === theirs.join() };
}

export async function benchEngines(settings: { label: string; ports: PortScanSettings }[]) {
  const lab = await createLab(ENGINE_LAB);
  try {
    lab.assertRoutedIntoLab();
    console.log(`\nengines: lab ${lab.subnet}, node ${process.version}`);
    for (const s of settings) await allPorts(lab, s.label, s.ports);
  } finally {
    lab.teardown();
  }
}
