import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventData } from '../../../src/modules/events/catalogue.js';
import { EventRepository } from '../../../src/modules/events/repository.js';
import { EventsService } from '../../../src/modules/events/service.js';
import type { EventFacets } from '../../../src/modules/events/types.js';
import { httpChannels } from '../../../src/modules/notifications/channels.js';
import { NotificationRepository } from '../../../src/modules/notifications/repository.js';
import { type NotificationOptions, NotificationService } from '../../../src/modules/notifications/service.js';
import { verifySignature } from '../../../src/modules/notifications/signature.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { type Receiver, startReceiver } from './receiver.js';

let counter = 0;
const findingData = (severity: 'Critical' | 'High' | 'Medium' = 'Critical'): EventData<'finding.created'> => {
  counter += 1;
  const n = String(counter).padStart(12, '0');
  return {
    Finding: {
      Id: `01900000-0000-7000-8000-${n}`,
      Title: `Finding ${counter}`,
      Severity: severity,
      State: 'Open',
      RiskScore: 80,
      Kev: true,
      DueAt: null,
      Asset: { Id: '01900000-0000-7000-9000-000000000001', Name: 'web-01' },
      Vulnerability: { Id: '01900000-0000-7000-9000-000000000002', Key: 'CVE-2024-0001' },
    },
  };
};

// The delivery of notifications to real receivers on 127.0.0.1, through a NotificationService
// built as the service graph builds it, with its own events service (whose dispatch the test
// runs by hand) and shorter waits, so that retries, timeouts and limits are seen in seconds.
describe.each(DB_KINDS)('notification deliveries [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const receivers: Receiver[] = [];
  const ctx = () => ({ organizationId: t.org.id, actor: { type: 'system' as const, id: null } });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  /** A notification service on the test's database, as the graph builds it, with these options. */
  function build(options: Partial<NotificationOptions> & { timeoutMs?: number } = {}) {
    const db = tdb.database.db;
    const events = new EventsService(new EventRepository(db), t.clock.fn, { checkPayloads: true });
    const notifications = new NotificationService(
      new NotificationRepository(db),
      { events, jobs: t.services.jobs, audit: t.services.audit, clock: t.clock.fn },
      httpChannels({
        policy: { allowLoopback: true, allowPrivate: false },
        baseUrl: 'http://rampart.test',
        timeoutMs: options.timeoutMs ?? 2000,
        clock: t.clock.fn,
      }),
      {
        baseUrl: 'http://rampart.test',
        backoff: { baseMs: 1000, maxMs: 60_000 },
        random: () => 1,
        ...options,
      },
    );
    const publish = (facets: EventFacets = {}, data = findingData()) =>
      db.transaction().execute((trx) => events.publish(trx, t.org.id, 'finding.created', data, { facets }));
    /** What the events-dispatch job does: every pending event to the consumers. */
    const dispatch = () => events.dispatchPending();
    return { events, notifications, publish, dispatch };
  }

  async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }

  let names = 0;
  async function webhook(n: NotificationService, url: string, extra: { ratePerMinute?: number } = {}) {
    names += 1;
    const { endpoint, secret } = await n.createEndpoint(ctx(), {
      name: `hook ${names}`,
      kind: 'Webhook',
      url,
      ...extra,
    });
    return { endpoint, secret: secret! };
  }
  async function rule(n: NotificationService, endpointIds: string[], filters: Record<string, unknown> = {}) {
    names += 1;
    return n.createRule(ctx(), {
      name: `rule ${names}`,
      eventTypes: ['finding.created'],
      endpointIds,
      ...filters,
    });
  }
  const deliveries = async (n: NotificationService, endpointId: string) =>
    (await n.listDeliveries(ctx(), endpointId, { pageSize: 100 })).items;

  it('delivers the CloudEvent, signed: the receiver verifies it, once per event', async () => {
    const { notifications: n, publish, dispatch, events } = build();
    const r = await receiver();
    const { endpoint, secret } = await webhook(n, r.url);
    await rule(n, [endpoint.id]);
    const eventId = await publish({ severity: 'Critical' });
    await dispatch();
    // The dispatch queued the endpoint's delivery job in its transaction.
    const job = await t.services.jobs.findByDedupKey('notification-deliver', `endpoint:${endpoint.id}`);
    expect(job).toMatchObject({
      state: 'Queued',
      organizationId: t.org.id,
      payload: { endpointId: endpoint.id },
    });
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();

    expect(r.received).toHaveLength(1);
    const request = r.received[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
    expect(request.headers['rampart-event-id']).toBe(eventId);
    const verdict = verifySignature(
      secret,
      request.headers['rampart-signature'] as string,
      request.body,
      t.clock.now,
    );
    expect(verdict.ok).toBe(true);
    const cloudEvent = JSON.parse(request.body);
    expect(cloudEvent).toMatchObject({
      specversion: '1.0',
      id: eventId,
      type: 'rampart.finding.created',
      source: `/rampart/organizations/${t.org.id}`,
      data: { Finding: { Severity: 'Critical' } },
    });
    const [delivery] = await deliveries(n, endpoint.id);
    expect(delivery).toMatchObject({ state: 'Succeeded', attempts: 1, eventId, lastStatus: 200 });
    expect(request.headers['rampart-delivery-id']).toBe(delivery!.id);
    expect(delivery!.attemptLog).toMatchObject([{ attempt: 1, status: 200, error: null }]);
    // Dispatching the same events again (a dispatch retried after a kill) queues nothing twice.
    const stored = await events.listRecent(t.org.id, { types: ['finding.created'] });
    await tdb.database.db.transaction().execute((trx) => n.dispatch(trx, stored));
    expect(await deliveries(n, endpoint.id)).toHaveLength(1);
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();
    expect(r.received).toHaveLength(1);
  });

  it('posts a sentence and a link to Slack and Teams incoming webhooks, unsigned', async () => {
    const { notifications: n, publish, dispatch } = build();
    const r = await receiver();
    const slack = await n.createEndpoint(ctx(), { name: 'chat-slack', kind: 'Slack', url: `${r.url}/slack` });
    const teams = await n.createEndpoint(ctx(), { name: 'chat-teams', kind: 'Teams', url: `${r.url}/teams` });
    expect(slack.secret).toBeNull();
    await rule(n, [slack.endpoint.id, teams.endpoint.id]);
    const data = findingData('High');
    await publish({ severity: 'High' }, data);
    await dispatch();
    await n.deliverDue(t.org.id, slack.endpoint.id);
    await n.deliverDue(t.org.id, teams.endpoint.id);
    const sentence = `High finding “${data.Finding.Title}” on web-01 was found.`;
    const link = `http://rampart.test/findings/${data.Finding.Id}`;
    const toSlack = r.received.find((q) => q.path.endsWith('/slack'))!;
    expect(toSlack.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(toSlack.headers['rampart-signature']).toBeUndefined();
    const slackBody = JSON.parse(toSlack.body);
    expect(slackBody.text).toBe(sentence);
    expect(JSON.stringify(slackBody.blocks)).toContain(`<${link}|Open in Rampart>`);
    const teamsBody = JSON.parse(r.received.find((q) => q.path.endsWith('/teams'))!.body);
    expect(teamsBody.attachments[0].content.body[1].text).toBe(sentence);
    expect(teamsBody.attachments[0].content.actions[0].url).toBe(link);
  });

  it('retries a receiver answering 500 with backoff and jitter, then succeeds', async () => {
    const { notifications: n, publish, dispatch } = build({ random: () => 0.5 });
    const r = await receiver((_req, i) => (i < 2 ? { status: 500, body: 'boom' } : { status: 204 }));
    const { endpoint } = await webhook(n, r.url);
    await rule(n, [endpoint.id]);
    await publish();
    await dispatch();
    const start = t.clock.now.getTime();
    // Attempt 1 fails: the next is 1 s (the base) × between ½ and 1 (jitter 0.5 → ¾) later.
    const second = await n.deliverDue(t.org.id, endpoint.id);
    expect(second?.getTime()).toBe(start + 750);
    let [delivery] = await deliveries(n, endpoint.id);
    expect(delivery).toMatchObject({
      state: 'Failed',
      attempts: 1,
      lastStatus: 500,
      lastError: 'The receiver answered 500: boom',
    });
    // Not due yet: nothing is sent before its time.
    expect(await n.deliverDue(t.org.id, endpoint.id)).toEqual(second);
    expect(r.received).toHaveLength(1);
    t.clock.now = second!;
    const third = await n.deliverDue(t.org.id, endpoint.id);
    expect(third?.getTime()).toBe(second!.getTime() + 1500);
    t.clock.now = third!;
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();
    [delivery] = await deliveries(n, endpoint.id);
    expect(delivery).toMatchObject({ state: 'Succeeded', attempts: 3, lastStatus: 204, lastError: null });
    expect(delivery!.attemptLog.map((a) => a.status)).toEqual([500, 500, 204]);
    // Every attempt carried the same event id: a receiver dedupes on it.
    expect(new Set(r.received.map((q) => q.headers['rampart-event-id'])).size).toBe(1);
    const endpointNow = await n.getEndpoint(ctx(), endpoint.id);
    expect(endpointNow.consecutiveFailures).toBe(0);
  });

  it('times a hanging receiver out without holding up other endpoints, and retries it', async () => {
    const { notifications: n, publish, dispatch } = build({ timeoutMs: 800 });
    const slow = await receiver(() => ({ hang: true }));
    const fast = await receiver();
    const a = await webhook(n, slow.url);
    const b = await webhook(n, fast.url);
    await rule(n, [a.endpoint.id, b.endpoint.id]);
    await publish();
    await dispatch();
    const started = performance.now();
    const slowRun = n.deliverDue(t.org.id, a.endpoint.id);
    await n.deliverDue(t.org.id, b.endpoint.id);
    const fastDone = performance.now() - started;
    expect(fast.received).toHaveLength(1);
    const next = await slowRun;
    const slowDone = performance.now() - started;
    expect(fastDone).toBeLessThan(slowDone);
    expect(slowDone).toBeGreaterThanOrEqual(790);
    const [failed] = await deliveries(n, a.endpoint.id);
    expect(failed).toMatchObject({
      state: 'Failed',
      lastStatus: null,
      lastError: 'The receiver did not answer within 800 ms.',
    });
    expect(failed!.attemptLog[0]!.durationMs).toBeGreaterThanOrEqual(790);
    // The receiver is back: the retry goes through.
    slow.behave(() => ({ status: 200 }));
    t.clock.now = next!;
    expect(await n.deliverDue(t.org.id, a.endpoint.id)).toBeNull();
    expect((await deliveries(n, a.endpoint.id))[0]).toMatchObject({ state: 'Succeeded', attempts: 2 });
  });

  it('tries an endpoint that is down once per backoff, not once per waiting event', async () => {
    const { notifications: n, publish, dispatch } = build();
    const r = await receiver(() => ({ status: 502 }));
    const { endpoint } = await webhook(n, r.url);
    await rule(n, [endpoint.id]);
    const first = await publish();
    await publish();
    await publish();
    await dispatch();
    const next = await n.deliverDue(t.org.id, endpoint.id);
    expect(r.received.map((q) => q.headers['rampart-event-id'])).toEqual([first]);
    expect((await deliveries(n, endpoint.id)).map((d) => d.state).sort()).toEqual([
      'Failed',
      'Pending',
      'Pending',
    ]);
    // At the retry, the oldest goes first again; the others still wait for the endpoint to answer.
    t.clock.now = next!;
    await n.deliverDue(t.org.id, endpoint.id);
    expect(r.received.map((q) => q.headers['rampart-event-id'])).toEqual([first, first]);
  });

  it('honours Retry-After within bounds, and gives up after the last attempt', async () => {
    const { notifications: n, publish, dispatch } = build({ maxAttempts: 3 });
    const r = await receiver((_req, i) =>
      i === 0
        ? { status: 429, headers: { 'Retry-After': '7' } }
        : { status: 503, headers: { 'Retry-After': '999999' } },
    );
    const { endpoint } = await webhook(n, r.url);
    await rule(n, [endpoint.id]);
    await publish();
    await dispatch();
    const start = t.clock.now.getTime();
    const second = await n.deliverDue(t.org.id, endpoint.id);
    expect(second?.getTime()).toBe(start + 7000);
    t.clock.now = second!;
    const third = await n.deliverDue(t.org.id, endpoint.id);
    // A day and more is cut to the bound: one hour.
    expect(third?.getTime()).toBe(second!.getTime() + 3_600_000);
    t.clock.now = third!;
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();
    const [dead] = await deliveries(n, endpoint.id);
    expect(dead).toMatchObject({ state: 'Dead', attempts: 3, lastStatus: 503 });
    expect(r.received).toHaveLength(3);
  });

  it('does not follow a redirect (to the metadata address or anywhere): the attempt fails saying so', async () => {
    const { notifications: n, publish, dispatch } = build();
    const r = await receiver(() => ({
      status: 302,
      headers: { Location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' },
    }));
    const { endpoint } = await webhook(n, r.url);
    await rule(n, [endpoint.id]);
    await publish();
    await dispatch();
    await n.deliverDue(t.org.id, endpoint.id);
    const [delivery] = await deliveries(n, endpoint.id);
    expect(delivery).toMatchObject({ state: 'Failed', lastStatus: 302 });
    expect(delivery!.lastError).toContain('redirect to http://169.254.169.254/latest/meta-data');
    expect(delivery!.lastError).toContain('redirects are not followed');
    expect(r.received).toHaveLength(1);
  });

  it('keeps to the endpoint’s rate: the excess waits its turn and none is dropped', async () => {
    const { notifications: n, publish, dispatch } = build();
    const r = await receiver();
    const { endpoint } = await webhook(n, r.url, { ratePerMinute: 2 });
    await rule(n, [endpoint.id]);
    for (let i = 0; i < 5; i++) await publish();
    await dispatch();
    const start = t.clock.now.getTime();
    const next = await n.deliverDue(t.org.id, endpoint.id);
    expect(r.received).toHaveLength(2);
    expect(next?.getTime()).toBe(start + 60_001);
    t.clock.now = next!;
    const after = await n.deliverDue(t.org.id, endpoint.id);
    expect(r.received).toHaveLength(4);
    t.clock.now = after!;
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();
    expect(r.received).toHaveLength(5);
    expect((await deliveries(n, endpoint.id)).every((d) => d.state === 'Succeeded')).toBe(true);
  });

  it('disables an endpoint that keeps failing, gives up its deliveries and publishes endpoint_disabled', async () => {
    const { notifications: n, publish, dispatch, events } = build({ disableAfterFailures: 3 });
    const r = await receiver(() => ({ status: 500 }));
    const { endpoint } = await webhook(n, r.url);
    await rule(n, [endpoint.id]);
    await publish();
    await publish();
    await dispatch();
    for (let i = 0; i < 3; i++) {
      const next = await n.deliverDue(t.org.id, endpoint.id);
      if (next) t.clock.now = next;
    }
    expect(r.received).toHaveLength(3);
    const disabled = await n.getEndpoint(ctx(), endpoint.id);
    expect(disabled).toMatchObject({
      enabled: false,
      consecutiveFailures: 3,
      disabledReason: '3 deliveries in a row failed.',
    });
    const states = (await deliveries(n, endpoint.id)).map((d) => d.state);
    expect(states).toEqual(['Dead', 'Dead']);
    const [notice] = await events.listRecent(t.org.id, { types: ['notification.endpoint_disabled'] });
    expect(notice?.data).toEqual({
      Endpoint: { Id: endpoint.id, Name: endpoint.name, Kind: 'Webhook' },
      Reason: '3 deliveries in a row failed.',
      Failures: 3,
    });
    // A disabled endpoint gets no new deliveries and sends nothing.
    await publish();
    await dispatch();
    expect(await deliveries(n, endpoint.id)).toHaveLength(2);
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();
    // Enabled again, its failures are forgotten; a redelivery by hand goes out.
    r.behave(() => ({ status: 200 }));
    expect(await n.enableEndpoint(ctx(), endpoint.id)).toMatchObject({
      enabled: true,
      consecutiveFailures: 0,
      disabledReason: null,
    });
    const [first] = await deliveries(n, endpoint.id);
    await expect(n.redeliver(ctx(), first!.id)).resolves.toMatchObject({ state: 'Pending', attempts: 0 });
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();
    expect((await n.getDelivery(ctx(), first!.id)).state).toBe('Succeeded');
    // A delivery waiting for its first attempt cannot be redelivered.
    await expect(n.redeliver(ctx(), first!.id)).resolves.toMatchObject({ state: 'Pending' });
    await expect(n.redeliver(ctx(), first!.id)).rejects.toMatchObject({ problem: { slug: 'conflict' } });
  });

  it('sends each endpoint what its rules’ filters pass', async () => {
    const { notifications: n, publish, dispatch } = build();
    const r = await receiver();
    const group = '01900000-0000-7000-8000-00000000abcd';
    const high = await webhook(n, r.url);
    const kevInGroup = await webhook(n, r.url);
    await rule(n, [high.endpoint.id], { minSeverity: 'High' });
    await rule(n, [kevInGroup.endpoint.id], { kevOnly: true, scanGroupId: group, riskAbove: 50 });
    await publish(
      { severity: 'Critical', kev: true, riskScore: 90, scanGroupIds: [group] },
      findingData('Critical'),
    );
    await publish(
      { severity: 'Medium', kev: true, riskScore: 90, scanGroupIds: [group] },
      findingData('Medium'),
    );
    await publish(
      { severity: 'High', kev: false, riskScore: 90, scanGroupIds: [group] },
      findingData('High'),
    );
    await dispatch();
    const sevs = async (id: string) => (await n.listDeliveries(ctx(), id, { pageSize: 10 })).items.length;
    expect(await sevs(high.endpoint.id)).toBe(2);
    expect(await sevs(kevInGroup.endpoint.id)).toBe(2);
  });

  it('loses no delivery to a kill between the dispatch and the send, and sends it once', async () => {
    const first = build();
    const r = await receiver();
    const { endpoint } = await webhook(first.notifications, r.url);
    await rule(first.notifications, [endpoint.id]);
    const eventId = await first.publish();
    await first.dispatch();
    // The process dies here: the delivery and its job were committed with the dispatch. A new
    // process (a new service graph on the same database) takes them up.
    const second = build();
    expect(await second.notifications.sweep()).toBeGreaterThanOrEqual(1);
    expect(await second.notifications.deliverDue(t.org.id, endpoint.id)).toBeNull();
    expect(r.received.map((q) => q.headers['rampart-event-id'])).toEqual([eventId]);
    expect((await deliveries(second.notifications, endpoint.id))[0]).toMatchObject({
      state: 'Succeeded',
      attempts: 1,
    });
  });

  it('sends again when the answer was lost after the send: the receiver dedupes by the event id', async () => {
    const { notifications: n, publish, dispatch } = build();
    // The first request arrives, then the connection drops before any answer.
    const r = await receiver((_req, i) => (i === 0 ? { drop: true } : { status: 200 }));
    const { endpoint } = await webhook(n, r.url);
    await rule(n, [endpoint.id]);
    const eventId = await publish();
    await dispatch();
    const next = await n.deliverDue(t.org.id, endpoint.id);
    expect((await deliveries(n, endpoint.id))[0]?.lastError).toMatch(/^The request failed: /);
    t.clock.now = next!;
    expect(await n.deliverDue(t.org.id, endpoint.id)).toBeNull();
    const ids = r.received.map((q) => q.headers['rampart-event-id']);
    expect(ids).toEqual([eventId, eventId]);
    // What docs/notifications.md asks a receiver to do: keep the ids it has handled.
    expect(new Set(ids).size).toBe(1);
  });
});
