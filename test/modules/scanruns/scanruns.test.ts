import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { ScanRun } from '../../../src/modules/scanruns/types.js';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall, enrolNode, expectBadRequest } from '../../helpers/scan-nodes.js';

const SOURCE = '0193a5c4-7f10-7c3e-9d41-000000000001';
/** A live host as discovery reports it (the contract of Discovery results). */
const host = (address: string) => ({
  address,
  hostname: null,
  openPorts: [22],
  closedPorts: [],
  macAddress: null,
  osGuess: null,
});
let sources = 0;
const newSource = () => {
  sources += 1;
  return `0193a5c4-7f10-7c3e-9d41-${String(sources).padStart(12, '0')}`;
};

describe.each(DB_KINDS)('scan runs: claims, leases, batches, stops, requeues [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let analyst: Credentials;
  let outsider: Credentials;
  let ctx: ServiceContext;
  let otherCtx: ServiceContext;
  const batches: { runId: string; attempt: number; items: unknown[] }[] = [];
  const finished: { runId: string; state: string }[] = [];
  const refusals = new Map<string, string>();

  const seconds = (s: number) => {
    t.clock.now = new Date(t.clock.now.getTime() + s * 1000);
  };
  const queue = (input: Partial<{ sourceId: string; nodeId: string | null; spec: unknown }> = {}, c = ctx) =>
    t.services.scanRuns.queue(c, {
      kind: 'Discovery',
      sourceId: input.sourceId ?? newSource(),
      sourceName: 'Office network',
      nodeId: input.nodeId ?? null,
      spec: input.spec ?? { targets: [{ range: '127.0.0.1' }] },
    });
  const claim = (nodeKey: string) => apiCall(t, 'POST', '/scanruns/claim', { nodeKey, body: {} });
  const batch = (nodeKey: string, run: string, attempt: number, seq: number, body: unknown) =>
    apiCall(t, 'PUT', `/scanruns/${run}/attempts/${attempt}/batches/${seq}`, { nodeKey, body });
  const finish = (nodeKey: string, run: string, attempt: number, body: unknown) =>
    apiCall(t, 'POST', `/scanruns/${run}/attempts/${attempt}/finish`, { nodeKey, body });
  const runOf = async (id: string) => (await apiCall(t, 'GET', `/scanruns/${id}`, { who: admin })).json();
  /** Finishes every run the node holds, so that its capacity is free for the next test. */
  const drain = async (nodeKey: string) => {
    for (;;) {
      const res = await claim(nodeKey);
      if (res.statusCode === 204) return;
      await finish(nodeKey, res.json().Id, res.json().Attempt, { State: 'Completed' });
    }
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_LOCAL_SCAN_NODE: 'false' } });
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    analyst = await t.userWithKey('Analyst');
    const other = await t.services.organizations.create('Other');
    outsider = await t.userWithKey('Admin', other);
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    otherCtx = { organizationId: other.id, actor: { type: 'system', id: null } };
    t.services.scanRuns.onBatch('Discovery', async (run, items, trx) => {
      // Inside the batch's transaction: the run is visible to it.
      const row = await trx.selectFrom('scan_runs').select('id').where('id', '=', run.id).executeTakeFirst();
      expect(row?.id).toBe(run.id);
      batches.push({ runId: run.id, attempt: run.attempt, items });
    });
    t.services.scanRuns.onFinished('Discovery', async (run) => {
      finished.push({ runId: run.id, state: run.state });
    });
    t.services.scanRuns.onBeforeStart('Discovery', async (run) => refusals.get(run.id) ?? null);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('hands a node the oldest run under a 60 s lease, within its capacity', async () => {
    const { nodeId, nodeKey } = await enrolNode(t, admin, { Capacity: 1 });
    const first = await queue({ sourceId: SOURCE });
    seconds(1);
    const second = await queue({ sourceId: SOURCE });

    const res = await claim(nodeKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      Id: first.id,
      Kind: 'Discovery',
      Attempt: 1,
      Spec: { targets: [{ range: '127.0.0.1' }] },
    });
    const run = await t.services.scanRuns.get(ctx, first.id);
    expect(run).toMatchObject({ state: 'Running', claimedBy: nodeId, attempt: 1, startedAt: t.clock.now });
    expect(run.leaseUntil?.getTime()).toBe(t.clock.now.getTime() + 60_000);
    // Capacity 1: nothing more until the first run ends.
    expect((await claim(nodeKey)).statusCode).toBe(204);

    const done = await finish(nodeKey, first.id, 1, { State: 'Completed' });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      State: 'Completed',
      Error: null,
      FinishedAt: t.clock.now.toISOString(),
    });
    // A finish sent again answers the same run.
    expect((await finish(nodeKey, first.id, 1, { State: 'Completed' })).statusCode).toBe(200);
    expect(finished.filter((f) => f.runId === first.id)).toEqual([{ runId: first.id, state: 'Completed' }]);
    expect((await claim(nodeKey)).json().Id).toBe(second.id);
    await drain(nodeKey);
    expect((await finish(nodeKey, second.id, 1, { State: 'Completed' })).statusCode).toBe(200);

    const history = (await runOf(first.id)).History.map((h: { State: string }) => h.State);
    expect(history).toEqual(['Queued', 'Running', 'Completed']);
  });

  it('applies a batch sent twice once, keeps progress, and refuses a batch of an attempt the node lost', async () => {
    const { nodeKey } = await enrolNode(t, admin);
    const run = await queue();
    await claim(nodeKey);
    const body = { Items: [host('127.0.0.1')], Progress: { Done: 1, Total: 4, Found: 1 } };
    const once = await batch(nodeKey, run.id, 1, 1, body);
    expect(once.statusCode, once.body).toBe(200);
    expect(once.json()).toEqual({ Applied: true, StopRequested: false });
    const twice = await batch(nodeKey, run.id, 1, 1, body);
    expect(twice.json()).toEqual({ Applied: false, StopRequested: false });
    expect(batches.filter((b) => b.runId === run.id)).toEqual([
      { runId: run.id, attempt: 1, items: body.Items },
    ]);
    expect((await runOf(run.id)).Progress).toEqual({ Done: 1, Total: 4, Found: 1 });
    // An empty batch carries progress only.
    await batch(nodeKey, run.id, 1, 2, { Items: [], Progress: { Done: 4, Total: 4, Found: 1 } });
    expect((await runOf(run.id)).Progress).toEqual({ Done: 4, Total: 4, Found: 1 });

    const rows = await tdb.database.db
      .selectFrom('scan_run_batches')
      .selectAll()
      .where('run_id', '=', run.id)
      .execute();
    expect(rows.map((r) => [r.attempt, r.seq, r.item_count])).toEqual([
      [1, 1, 1],
      [1, 2, 0],
    ]);
    // Another node, or another attempt: 409.
    const { nodeKey: otherKey } = await enrolNode(t, admin);
    expect((await batch(otherKey, run.id, 1, 3, { Items: [] })).statusCode).toBe(409);
    expect((await batch(nodeKey, run.id, 2, 1, { Items: [] })).statusCode).toBe(409);
    expect((await finish(otherKey, run.id, 1, { State: 'Completed' })).statusCode).toBe(409);
    await finish(nodeKey, run.id, 1, { State: 'Failed', Error: 'engine broke' });
    expect(await runOf(run.id)).toMatchObject({ State: 'Failed', Error: 'engine broke' });
    expect((await batch(nodeKey, run.id, 1, 3, { Items: [] })).statusCode).toBe(409);
  });

  it('refuses bad protocol input, naming the field', async () => {
    const { nodeKey } = await enrolNode(t, admin);
    const run = await queue();
    await claim(nodeKey);
    expectBadRequest(await batch(nodeKey, run.id, 1, 0, { Items: [] }), 'Seq');
    expectBadRequest(await batch(nodeKey, run.id, 0, 1, { Items: [] }), 'Attempt');
    expectBadRequest(await batch(nodeKey, 'nope', 1, 1, { Items: [] }), 'Id');
    expectBadRequest(await batch(nodeKey, run.id, 1, 1, { Items: 'x' }), 'Items');
    expectBadRequest(await batch(nodeKey, run.id, 1, 1, {}), 'Items');
    expectBadRequest(
      await batch(nodeKey, run.id, 1, 1, { Items: [], Progress: { Done: -1, Total: 1, Found: 0 } }),
      'Done',
    );
    expectBadRequest(
      await batch(nodeKey, run.id, 1, 1, { Items: [], Progress: { Done: 5, Total: 1, Found: 0 } }),
      'Done',
    );
    expectBadRequest(await finish(nodeKey, run.id, 1, { State: 'Running' }), 'State');
    expectBadRequest(await finish(nodeKey, run.id, 1, { State: 'Failed', Error: 'x'.repeat(4001) }), 'Error');
    expectBadRequest(
      await apiCall(t, 'POST', '/scanruns/claim', { nodeKey, body: { Kinds: ['Web'] } }),
      'Kinds',
    );
    expectBadRequest(
      await apiCall(t, 'POST', '/scanruns/claim', { nodeKey, body: { Kinds: ['Nope'] } }),
      'Kinds',
    );
    expect(
      (await batch(nodeKey, '0193a5c4-7f10-7c3e-9d41-ffffffffffff', 1, 1, { Items: [] })).statusCode,
    ).toBe(404);
    await drain(nodeKey);
    await finish(nodeKey, run.id, 1, { State: 'Completed' });

    await expect(
      t.services.scanRuns.queue(ctx, {
        kind: 'Discovery',
        sourceId: 'x',
        sourceName: 'n',
        nodeId: null,
        spec: {},
      }),
    ).rejects.toMatchObject({ fields: [{ field: ['sourceId'] }] });
    await expect(
      t.services.scanRuns.queue(ctx, {
        kind: 'Nmap' as never,
        sourceId: SOURCE,
        sourceName: 'n',
        nodeId: null,
        spec: {},
      }),
    ).rejects.toMatchObject({ fields: [{ field: ['kind'] }] });
    await expect(
      t.services.scanRuns.queue(ctx, {
        kind: 'Discovery',
        sourceId: SOURCE,
        sourceName: ' ',
        nodeId: null,
        spec: {},
      }),
    ).rejects.toMatchObject({ fields: [{ field: ['sourceName'] }] });
    await expect(
      t.services.scanRuns.queue(ctx, {
        kind: 'Discovery',
        sourceId: SOURCE,
        sourceName: 'n',
        nodeId: '0193a5c4-7f10-7c3e-9d41-ffffffffffff',
        spec: {},
      }),
    ).rejects.toMatchObject({ fields: [{ field: ['nodeId'] }] });
  });

  it('gives a run asked of one node to that node only, and never another organisation’s run', async () => {
    const a = await enrolNode(t, admin);
    const b = await enrolNode(t, admin);
    const theirs = await enrolNode(t, outsider);
    const forB = await queue({ nodeId: b.nodeId });
    const foreign = await queue({}, otherCtx);
    expect((await claim(a.nodeKey)).statusCode).toBe(204);
    expect((await claim(b.nodeKey)).json().Id).toBe(forB.id);
    expect((await claim(theirs.nodeKey)).json().Id).toBe(foreign.id);
    // The other organisation's Admin does not see this organisation's runs.
    expect((await apiCall(t, 'GET', `/scanruns/${forB.id}`, { who: outsider })).statusCode).toBe(404);
    expect((await apiCall(t, 'POST', `/scanruns/${forB.id}/stop`, { who: outsider })).statusCode).toBe(404);
    await finish(b.nodeKey, forB.id, 1, { State: 'Completed' });
    await finish(theirs.nodeKey, foreign.id, 1, { State: 'Completed' });
    // The local node serves every organisation.
    const local = await t.services.scanNodes.ensureLocal({
      kinds: ['Discovery'],
      version: 'test',
      capacity: 2,
    });
    const mine = await queue();
    seconds(1);
    const other = await queue({}, otherCtx);
    const claimed = [await t.services.scanRuns.claim(local), await t.services.scanRuns.claim(local)];
    expect(claimed.map((c) => c?.id)).toEqual([mine.id, other.id]);
    for (const c of claimed)
      await t.services.scanRuns.finish(local, { runId: c!.id, attempt: 1, state: 'Completed' });
  });

  it('stops a queued run at once, and a running one through its node', async () => {
    const { nodeKey } = await enrolNode(t, admin);
    const queued = await queue();
    expect((await apiCall(t, 'POST', `/scanruns/${queued.id}/stop`, { who: analyst })).statusCode).toBe(403);
    const stopped = await apiCall(t, 'POST', `/scanruns/${queued.id}/stop`, { who: manager });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json()).toMatchObject({ State: 'Stopped', StopRequested: true });
    expect(finished).toContainEqual({ runId: queued.id, state: 'Stopped' });
    // Asked again: answered as it is, and the run ends once only.
    const again = await apiCall(t, 'POST', `/scanruns/${queued.id}/stop`, { who: admin });
    expect(again.json()).toMatchObject({ State: 'Stopped' });
    expect(finished.filter((f) => f.runId === queued.id)).toHaveLength(1);

    const running = await queue();
    expect((await claim(nodeKey)).json().Id).toBe(running.id);
    const stopping = await apiCall(t, 'POST', `/scanruns/${running.id}/stop`, {
      who: admin,
      channel: 'integration',
    });
    expect(stopping.json()).toMatchObject({ State: 'Stopping', StopRequested: true });
    const beat = await apiCall(t, 'POST', '/scannodes/heartbeat', {
      nodeKey,
      body: { RunIds: [running.id] },
    });
    expect(beat.json()).toMatchObject({ StopRunIds: [running.id], LostRunIds: [] });
    expect((await batch(nodeKey, running.id, 1, 1, { Items: [host('127.0.0.2')] })).json()).toEqual({
      Applied: true,
      StopRequested: true,
    });
    expect((await finish(nodeKey, running.id, 1, { State: 'Stopped' })).json()).toMatchObject({
      State: 'Stopped',
    });
    expect((await runOf(running.id)).History.map((h: { State: string }) => h.State)).toEqual([
      'Queued',
      'Running',
      'Stopping',
      'Stopped',
    ]);
  });

  it('queues a silent node’s run again, at most twice, then fails it with the reason', async () => {
    const { nodeKey } = await enrolNode(t, admin, { Name: 'flaky' });
    const run = await queue();
    for (const attempt of [1, 2, 3]) {
      const claimed = await claim(nodeKey);
      expect(claimed.json()).toMatchObject({ Id: run.id, Attempt: attempt });
      // A heartbeat naming the run keeps it…
      seconds(50);
      await apiCall(t, 'POST', '/scannodes/heartbeat', { nodeKey, body: { RunIds: [run.id] } });
      seconds(50);
      expect(await t.services.scanRuns.requeueSilent()).toBe(0);
      // …silence for 60 s loses it.
      seconds(11);
      expect(await t.services.scanRuns.requeueSilent()).toBe(1);
    }
    const failed = await runOf(run.id);
    expect(failed).toMatchObject({ State: 'Failed', Attempt: 3 });
    expect(failed.Error).toBe(
      'The scan node "flaky" fell silent for 60 s on attempt 3 of 3: the run was given up.',
    );
    expect(failed.History.map((h: { State: string }) => h.State)).toEqual([
      'Queued',
      'Running',
      'Queued',
      'Running',
      'Queued',
      'Running',
      'Failed',
    ]);
    expect(finished).toContainEqual({ runId: run.id, state: 'Failed' });
    // The node learns it lost the run; its old attempt's batches are refused.
    const beat = await apiCall(t, 'POST', '/scannodes/heartbeat', { nodeKey, body: { RunIds: [run.id] } });
    expect(beat.json().LostRunIds).toEqual([run.id]);
    expect((await batch(nodeKey, run.id, 3, 1, { Items: [] })).statusCode).toBe(409);
  });

  it('fails a run its start check refuses, with the refusal, and hands out the next one', async () => {
    const { nodeKey } = await enrolNode(t, admin);
    const refused = await queue();
    seconds(1);
    const next = await queue();
    refusals.set(refused.id, '10.0.0.0/8 is outside the allowed ranges.');
    expect((await claim(nodeKey)).json().Id).toBe(next.id);
    expect(await runOf(refused.id)).toMatchObject({
      State: 'Failed',
      Error: '10.0.0.0/8 is outside the allowed ranges.',
    });
    await finish(nodeKey, next.id, 1, { State: 'Completed' });
  });

  it('lists runs newest first, filtered and paged, with the latest per source; refuses bad filters', async () => {
    const source = newSource();
    const runs: ScanRun[] = [];
    for (let i = 0; i < 3; i++) {
      runs.push(await queue({ sourceId: source }));
      seconds(1);
    }
    const page = (await apiCall(t, 'GET', `/scanruns?SourceId=${source}&PageSize=2`, { who: admin })).json();
    expect(page.TotalCount).toBe(3);
    expect(page.Items.map((r: { Id: string }) => r.Id)).toEqual([runs[2]!.id, runs[1]!.id]);
    const rest = (
      await apiCall(
        t,
        'GET',
        `/scanruns?SourceId=${source}&PageSize=2&Cursor=${encodeURIComponent(page.NextCursor)}`,
        {
          who: admin,
        },
      )
    ).json();
    expect(rest.Items.map((r: { Id: string }) => r.Id)).toEqual([runs[0]!.id]);
    expect(rest.NextCursor).toBeNull();
    expect(page.Items[0]).not.toHaveProperty('Spec');
    expect((await t.services.scanRuns.latest(ctx, source))?.id).toBe(runs[2]!.id);
    expect(await t.services.scanRuns.latest(otherCtx, source)).toBeNull();
    const queuedOnly = (
      await apiCall(t, 'GET', `/scanruns?SourceId=${source}&State=Queued&Kind=Discovery`, { who: admin })
    ).json();
    expect(queuedOnly.TotalCount).toBe(3);
    expect(
      (await apiCall(t, 'GET', `/scanruns?SourceId=${source}`, { who: outsider })).json().TotalCount,
    ).toBe(0);
    // Every role reads runs (a scan's page lists them); a run's spec is never shown.
    const asManager = await apiCall(t, 'GET', `/scanruns?SourceId=${source}`, { who: manager });
    expect(asManager.json().TotalCount).toBe(3);
    expect(asManager.body).not.toContain('"Spec"');

    for (const [query, field] of [
      ['State=Nope', 'State'],
      ['Kind=Nope', 'Kind'],
      ['SourceId=x', 'SourceId'],
      ['PageSize=0', 'PageSize'],
      ['Cursor=forged', 'Cursor'],
    ] as const)
      expectBadRequest(await apiCall(t, 'GET', `/scanruns?${query}`, { who: admin }), field);
    for (const r of runs) await t.services.scanRuns.stop(ctx, r.id);
  });

  it.runIf(kind === 'postgres')('never gives one run to two nodes claiming at once', async () => {
    const nodes = await Promise.all([1, 2, 3, 4].map(() => enrolNode(t, admin, { Capacity: 10 })));
    const queued: string[] = [];
    for (let i = 0; i < 12; i++) queued.push((await queue()).id);
    const answers = await Promise.all(
      nodes.flatMap((n) => Array.from({ length: 5 }, () => claim(n.nodeKey))),
    );
    const ids = answers.filter((a) => a.statusCode === 200).map((a) => a.json().Id as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...queued].sort());
  });
});
