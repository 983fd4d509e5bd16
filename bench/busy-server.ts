/**
 * Child process of bench/busy.ts: Rampart as `rampart serve` builds it (request log on, the
 * server's own scan node, background jobs), on the database named in argv, with one Analyst's API
 * key. It measures its own event-loop delay and answers the parent over IPC:
 *   { type: 'phase' }                      → { type: 'delay', p50, p99, max } (ms), then resets
 *   { type: 'scan', subnet, addresses[] }  → allows the subnet, runs the default system scan [S1]
 *                                            over the addresses → { type: 'scanned', ms, state, ... }
 *   'stop'                                 → closes and exits
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startBenchApp } from './bench-app.js';

const DEFAULT_SYSTEM_TEMPLATE = '01900000-0000-7000-8000-0000000000e1';
/** The histogram's sampling interval: every sample includes it, so it is taken off. */
const RESOLUTION_MS = 10;
const SCAN_LIMIT_MS = 300_000;

const bench = await startBenchApp({
  kind: process.argv[2] ?? 'embedded',
  url: process.argv[3],
  env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
});
const { app, services } = bench;
const { organization } = await services.organizations.ensureFirst();
const ctx = { organizationId: organization.id, actor: { type: 'system' as const, id: null } };
const address = await app.listen({ port: 0, host: '127.0.0.1' });

const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

function delays() {
  const result = {
    type: 'delay',
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    max: ms(delay.max),
  };
  delay.reset();
  return result;
}

async function scan(subnet: string, addresses: string[]) {
  await services.allowedTargets.create(ctx, { kind: 'Allowed', target: subnet });
  const systemScan = await services.systemScans.create(ctx, {
    name: 'bench:busy',
    targets: addresses.map((range) => ({ range })),
    assetId: null,
    exclusions: [],
    templateId: DEFAULT_SYSTEM_TEMPLATE,
    nodeId: null,
    schedule: null,
    scanGroupId: null,
  });
  const started = performance.now();
  await services.systemScans.start(ctx, systemScan.id);
  // Done when the run ended and its results became findings.
  while (performance.now() - started < SCAN_LIMIT_MS) {
    const report = await services.systemScans.latestReport(ctx, systemScan.id);
    const ended = ['Completed', 'Failed', 'Stopped'].includes(report.run.state);
    if (ended && (report.run.state !== 'Completed' || report.record?.ingestedAt)) {
      return {
        type: 'scanned',
        ms: performance.now() - started,
        state: report.run.state,
        hosts: report.hosts.length,
        counts: report.record?.counts ?? null,
        error: report.record?.ingestError ?? null,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { type: 'scanned', ms: performance.now() - started, state: 'TimedOut', hosts: 0, counts: null };
}

process.send?.({ type: 'ready', url: address, accessKey: bench.accessKey, secretKey: bench.secretKey });
process.on('message', async (message: { type?: string; subnet?: string; addresses?: string[] } | string) => {
  if (message === 'stop') {
    await bench.close();
    process.exit(0);
  }
  if (typeof message !== 'object') return;
  if (message.type === 'phase') process.send?.(delays());
  if (message.type === 'scan') {
    try {
      process.send?.(await scan(message.subnet!, message.addresses!));
    } catch (error) {
      process.send?.({ type: 'scanned', ms: 0, state: 'Error', error: (error as Error).message });
    }
  }
});
