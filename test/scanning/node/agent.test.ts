import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { ScanNode } from '../../../src/modules/scannodes/types.js';
import { ScanNodeAgent } from '../../../src/scanning/node/agent.js';
import { HttpNodeTransport } from '../../../src/scanning/node/http-transport.js';
import { InProcessNodeTransport } from '../../../src/scanning/node/in-process-transport.js';
import { LeaseLostError, NodeUnauthorizedError } from '../../../src/scanning/node/transport.js';
import type { DiscoveredHost, DiscoverySpec, RunExecutor, ScanKind } from '../../../src/scanning/types.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

/**
 * A stand-in for the discovery engine (written elsewhere): it emits one host per address of its
 * spec, reports progress, and, when told to, waits until its signal aborts.
 */
interface TestSpec {
  /** Hosts to emit. */
  count: number;
  waitForStop?: boolean;
  /** Tells runs apart in `aborted`. */
  tag?: string;
}
/** A discovery spec as the contract says, which the test's settings ride along with. */
const DISCOVERY_SPEC: DiscoverySpec = {
  // No targets: the organisation's policy (checked at the claim) has nothing to refuse.
  targets: [],
  exclusions: [],
  template: {
    ports: [22],
    timeoutMs: 100,
    retries: 0,
    maxInFlight: 1,
    connectionsPerSecond: 1,
    perHostInFlight: 1,
    reverseDns: false,
    useNmap: false,
  },
  policy: { allowed: [], excluded: [], allowLoopback: false },
};
/** A live host as discovery reports it. */
const host = (address: string): DiscoveredHost => ({
  address,
  hostname: null,
  openPorts: [22],
  closedPorts: [],
  macAddress: null,
  osGuess: null,
});
const aborted = new Set<string>();
const testExecutor: RunExecutor = async (spec, context) => {
  const { count, waitForStop } = spec as DiscoverySpec & TestSpec;
  for (let i = 0; i < count && !context.signal.aborted; i++) {
    await context.emit([host(`127.0.0.${i + 1}`)]);
    context.progress({ done: i + 1, total: count, found: i + 1 });
  }
  if (waitForStop && !context.signal.aborted)
    await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
  if (context.signal.aborted) aborted.add(JSON.stringify(spec));
};
const executors = new Map<ScanKind, RunExecutor>([['Discovery', testExecutor]]);

describe.each(DB_KINDS)('the scan node agent [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;
  let sources = 0;
  const received: { runId: string; attempt: number; items: unknown[] }[] = [];

  const seconds = (s: number) => {
    t.clock.now = new Date(t.clock.now.getTime() + s * 1000);
  };
  const queue = (spec: TestSpec, nodeId: string | null = null) => {
    sources += 1;
    return t.services.scanRuns.queue(ctx, {
      kind: 'Discovery',
      sourceId: `0193a5c4-7f10-7c3e-9d41-${String(sources).padStart(12, '0')}`,
      sourceName: `scan ${sources}`,
      nodeId,
      spec: { ...DISCOVERY_SPEC, ...spec, tag: `${kind}-${sources}` },
    });
  };
  const newNode = async (capacity = 1): Promise<{ node: ScanNode; nodeKey: string }> => {
    const { token } = await t.services.scanNodes.createEnrolment(ctx);
    return t.services.scanNodes.enrol(token, { name: 'agent test', kinds: ['Discovery'], capacity });
  };
  const agentFor = (node: ScanNode, flushItems = 500) =>
    new ScanNodeAgent({
      transport: new InProcessNodeTransport(t.services.scanRuns, node),
      executors,
      capacity: node.capacity,
      version: 'test',
      clock: t.clock.fn,
      flushItems,
    });
  const itemsOf = (runId: string) => received.filter((b) => b.runId === runId).flatMap((b) => b.items);

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true, env: { RAMPART_LOCAL_SCAN_NODE: 'false' } });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    t.services.scanRuns.onBatch('Discovery', async (run, items) => {
      received.push({ runId: run.id, attempt: run.attempt, items });
    });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('claims a run, sends its results in batches numbered from 1, and completes it', async () => {
    const { node } = await newNode();
    const agent = agentFor(node, 3);
    const run = await queue({ count: 7 }, node.id);
    await agent.tick();
    expect(agent.activeRunIds).toEqual([run.id]);
    await agent.idle();
    const done = await t.services.scanRuns.get(ctx, run.id);
    expect(done).toMatchObject({ state: 'Completed', attempt: 1, progress: { done: 7, total: 7, found: 7 } });
    expect(itemsOf(run.id)).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => host(`127.0.0.${i}`)));
    const rows = await tdb.database.db
      .selectFrom('scan_run_batches')
      .selectAll()
      .where('run_id', '=', run.id)
      .execute();
    expect(rows.map((r) => [r.seq, r.item_count])).toEqual([
      [1, 3],
      [2, 3],
      [3, 1],
    ]);
    expect((await t.services.scanNodes.get(ctx, node.id)).state).toBe('Online');
  });

  it('sends what waited a second, and stops a run within 5 s of the request (counted in ticks of 1 s)', async () => {
    const { node } = await newNode();
    const agent = agentFor(node);
    const run = await queue({ count: 2, waitForStop: true }, node.id);
    const spec = run.spec;
    await agent.tick();
    seconds(1);
    await agent.tick();
    // Fewer than flushItems, sent once a second had passed.
    expect(itemsOf(run.id)).toHaveLength(2);

    await t.services.scanRuns.stop(ctx, run.id);
    let ticks = 0;
    while (!aborted.has(JSON.stringify(spec)) && ticks < 10) {
      seconds(1);
      await agent.tick();
      ticks += 1;
    }
    expect(ticks).toBeGreaterThanOrEqual(1);
    expect(ticks).toBeLessThanOrEqual(5);
    await agent.idle();
    expect(await t.services.scanRuns.get(ctx, run.id)).toMatchObject({ state: 'Stopped', error: null });
  });

  it('fails a run whose spec breaks the contract, naming where, before its engine runs', async () => {
    const { node } = await newNode();
    const agent = agentFor(node);
    const bad = { ...DISCOVERY_SPEC, template: { ...DISCOVERY_SPEC.template, ports: [22, 70000] } };
    sources += 1;
    const run = await t.services.scanRuns.queue(ctx, {
      kind: 'Discovery',
      sourceId: `0193a5c4-7f10-7c3e-9d41-${String(sources).padStart(12, '0')}`,
      sourceName: 'bad spec',
      nodeId: node.id,
      spec: { ...bad, count: 3 },
    });
    await agent.tick();
    await agent.idle();
    const failed = await t.services.scanRuns.get(ctx, run.id);
    expect(failed.state).toBe('Failed');
    expect(failed.error).toBe(
      "The run's spec is not a Discovery spec this node can run: /template/ports/1 must be <= 65535",
    );
    expect(itemsOf(run.id)).toEqual([]);
  });

  it('fails a run whose engine emits items the server refuses, naming the item and the field', async () => {
    const { node } = await newNode();
    const broken: RunExecutor = async (_spec, context) => {
      await context.emit([host('127.0.0.1'), { ...host('127.0.0.2'), openPorts: [0] }]);
    };
    const agent = new ScanNodeAgent({
      transport: new InProcessNodeTransport(t.services.scanRuns, node),
      executors: new Map<ScanKind, RunExecutor>([['Discovery', broken]]),
      capacity: 1,
      version: 'test',
      clock: t.clock.fn,
    });
    const run = await queue({ count: 0 }, node.id);
    await agent.tick();
    await agent.idle();
    const failed = await t.services.scanRuns.get(ctx, run.id);
    expect(failed.state).toBe('Failed');
    expect(failed.error).toContain('/Items/1/openPorts/0 must be >= 1');
    // Nothing of the refused batch was applied.
    expect(itemsOf(run.id)).toEqual([]);
  });

  it('abandons a run whose lease lapsed; the next attempt starts from scratch; a shutdown stops its runs', async () => {
    const { node } = await newNode();
    const agent = agentFor(node);
    const run = await queue({ count: 1, waitForStop: true }, node.id);
    await agent.tick();
    seconds(61);
    expect(await t.services.scanRuns.requeueSilent()).toBeGreaterThanOrEqual(1);
    // The heartbeat learns the run was lost: the agent drops attempt 1 without finishing it, and
    // claims the run again (at once, or on the next tick once attempt 1 has wound down).
    await agent.tick();
    if ((await t.services.scanRuns.get(ctx, run.id)).state === 'Queued') await agent.tick();
    const again = await t.services.scanRuns.get(ctx, run.id);
    expect(again).toMatchObject({ state: 'Running', attempt: 2 });
    expect(again.history.map((h) => h.state)).toEqual(['Queued', 'Running', 'Queued', 'Running']);
    seconds(1);
    await agent.tick();
    // Attempt 2 started from scratch and sent its results itself.
    expect(received.filter((b) => b.runId === run.id).map((b) => [b.attempt, b.items])).toEqual([
      [2, [host('127.0.0.1')]],
    ]);

    await agent.stop();
    expect(await t.services.scanRuns.get(ctx, run.id)).toMatchObject({
      state: 'Stopped',
      error: 'The scan node shut down during the run.',
    });
  });

  it('ends its loop when the server refuses its key (revoked)', async () => {
    const { node } = await newNode();
    const admin: ServiceContext = { ...ctx, userId: t.admin.userId };
    await t.services.scanNodes.revoke(admin, node.id);
    const agent = new ScanNodeAgent({
      transport: new InProcessNodeTransport(t.services.scanRuns, node),
      executors,
      capacity: 1,
      version: 'test',
      clock: t.clock.fn,
      unref: true,
    });
    agent.start();
    await agent.ended;
    expect(agent.fatal).toBeInstanceOf(NodeUnauthorizedError);
  });

  it('over HTTP, sends a batch again after a lost answer with the same number: applied once', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const serverUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const { node, nodeKey } = await newNode();
    let dropped = 0;
    const calls: string[] = [];
    // The first batch reaches the server, but its answer is lost on the way back.
    const flakyFetch: typeof fetch = async (input, init) => {
      calls.push(`${init?.method} ${String(input).replace(serverUrl, '')}`);
      const response = await fetch(input, init);
      if (init?.method === 'PUT' && dropped === 0) {
        dropped += 1;
        await response.body?.cancel();
        throw new TypeError('fetch failed');
      }
      return response;
    };
    const transport = new HttpNodeTransport({ serverUrl, nodeKey, fetch: flakyFetch, sleep: async () => {} });
    const run = await queue({ count: 0 }, node.id);
    const claimed = await transport.claim(['Discovery']);
    expect(claimed).toEqual({ id: run.id, kind: 'Discovery', attempt: 1, spec: run.spec });
    const answer = await transport.sendBatch(run.id, 1, 1, {
      items: [host('127.0.0.9')],
      progress: null,
    });
    expect(answer).toEqual({ applied: false, stopRequested: false });
    const path = `PUT /api/integration/scanruns/${run.id}/attempts/1/batches/1`;
    expect(calls.filter((c) => c === path)).toHaveLength(2);
    expect(itemsOf(run.id)).toEqual([host('127.0.0.9')]);

    await expect(transport.sendBatch(run.id, 2, 1, { items: [], progress: null })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await transport.finish(run.id, 1, 'Completed');
    expect((await t.services.scanRuns.get(ctx, run.id)).state).toBe('Completed');
    expect(
      await transport.heartbeat({ kinds: ['Discovery'], version: 'x', capacity: 1, runIds: [] }),
    ).toEqual({
      stopRunIds: [],
      lostRunIds: [],
    });
    const wrongKey = new HttpNodeTransport({
      serverUrl,
      nodeKey: `${nodeKey.slice(0, -1)}x`,
      sleep: async () => {},
    });
    await expect(wrongKey.claim(['Discovery'])).rejects.toBeInstanceOf(NodeUnauthorizedError);
    // Nobody listening: tried 1 + retries times, then a clear error.
    let tries = 0;
    const unreachable = new HttpNodeTransport({
      serverUrl: 'http://127.0.0.1:9',
      nodeKey,
      retries: 2,
      sleep: async () => {},
      fetch: async (input, init) => {
        tries += 1;
        return fetch(input, init);
      },
    });
    await expect(unreachable.claim(['Discovery'])).rejects.toThrow(
      'Cannot reach the server at http://127.0.0.1:9',
    );
    expect(tries).toBe(3);
    expect(node.capacity).toBe(1);
  });
});
