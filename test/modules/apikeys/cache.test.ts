import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalInvalidationBus } from '../../../src/lib/invalidation-bus.js';
import { buildServices, type Services } from '../../../src/services.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const CACHE_SECONDS = 30;

// The API key cache: a fresh entry answers without the database; in the period after it, the
// entry still answers while one reload runs beside the request; after that, the database decides.
describe.each(DB_KINDS)('API key cache [%s]', (kind) => {
  let tdb: TestDatabase;
  let services: Services;
  let ctx: Parameters<Services['apiKeys']['create']>[0];
  let userId: string;
  const bus = new LocalInvalidationBus();

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    services = buildServices(tdb.database, () => new Date(), bus, {
      authCacheSeconds: CACHE_SECONDS,
      sessionIdleMinutes: 30,
      sessionMaxHours: 12,
    });
    const { organization } = await services.organizations.ensureFirst();
    ctx = { organizationId: organization.id, actor: { type: 'system', id: null } };
    userId = (await services.users.create(ctx, { email: 'cache@example.com', role: 'Analyst' })).id;
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  async function newKey() {
    const { key, secretKey } = await services.apiKeys.create(ctx, { userId, name: 'cache' });
    return { accessKey: key.accessKey, secretKey, id: key.id };
  }

  /** Revokes in the database only, as when the bus message is lost: only a reload can see it. */
  const revokeBehindTheCache = (id: string) =>
    sql`update api_keys set revoked_at = now() where id = ${id}`.execute(tdb.database.db);

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('answers from memory while fresh, and reloads beside the request once past its time', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2031-05-01T10:00:00Z') });
    const k = await newKey();
    const first = services.apiKeys.authenticate(k.accessKey, k.secretKey);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ kind: 'apiKey', apiKeyId: k.id });

    await revokeBehindTheCache(k.id);
    // Fresh: the revocation the bus never told of is not seen yet.
    expect(services.apiKeys.authenticate(k.accessKey, k.secretKey)).toMatchObject({ apiKeyId: k.id });

    vi.setSystemTime(new Date('2031-05-01T10:00:31Z'));
    // Past its time, within the next period: answered at once, with a reload started.
    const stale = services.apiKeys.authenticate(k.accessKey, k.secretKey);
    expect(stale).not.toBeInstanceOf(Promise);
    expect(stale).toMatchObject({ apiKeyId: k.id });
    await settle();
    // The reload read the revocation.
    expect(services.apiKeys.authenticate(k.accessKey, k.secretKey)).toBeNull();
  });

  it('asks the database again once the second period is over too', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2031-05-02T10:00:00Z') });
    const k = await newKey();
    await services.apiKeys.authenticate(k.accessKey, k.secretKey);
    vi.setSystemTime(new Date('2031-05-02T10:01:00Z'));
    const late = services.apiKeys.authenticate(k.accessKey, k.secretKey);
    expect(late).toBeInstanceOf(Promise);
    expect(await late).toMatchObject({ apiKeyId: k.id });
  });

  it('does not cache a row read before an invalidation that came while it was read', async () => {
    const k = await newKey();
    const loading = services.apiKeys.authenticate(k.accessKey, k.secretKey);
    expect(loading).toBeInstanceOf(Promise);
    // Told (a revocation on another instance) while the row is on its way: what was read may
    // predate it.
    await bus.publish(`apikey:${k.accessKey}`);
    expect(await loading).toMatchObject({ apiKeyId: k.id });
    expect(services.apiKeys.authenticate(k.accessKey, k.secretKey)).toBeInstanceOf(Promise);
  });

  it('refuses a wrong secret from a stale entry as from a fresh one', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2031-05-03T10:00:00Z') });
    const k = await newKey();
    await services.apiKeys.authenticate(k.accessKey, k.secretKey);
    vi.setSystemTime(new Date('2031-05-03T10:00:45Z'));
    expect(services.apiKeys.authenticate(k.accessKey, 'x'.repeat(k.secretKey.length))).toBeNull();
    await settle();
  });

  it('refuses a secret one character off the verified one while the entry is fresh', async () => {
    const k = await newKey();
    await services.apiKeys.authenticate(k.accessKey, k.secretKey);
    const last = k.secretKey.at(-1) === 'A' ? 'B' : 'A';
    const offByOne = `${k.secretKey.slice(0, -1)}${last}`;
    expect(services.apiKeys.authenticate(k.accessKey, offByOne)).toBeNull();
    expect(services.apiKeys.authenticate(k.accessKey, k.secretKey)).toMatchObject({ apiKeyId: k.id });
    // The other key's secret is verified against its own entry, not the last one compared.
    const other = await newKey();
    await services.apiKeys.authenticate(other.accessKey, other.secretKey);
    expect(services.apiKeys.authenticate(k.accessKey, other.secretKey)).toBeNull();
    expect(services.apiKeys.authenticate(other.accessKey, k.secretKey)).toBeNull();
  });

  it('answers with a principal no caller can change, and a changed role at once', async () => {
    const k = await newKey();
    const first = (await services.apiKeys.authenticate(k.accessKey, k.secretKey))!;
    expect(first.role).toBe('Analyst');
    // One object may answer many requests: a caller that changed it would change them all.
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { role: string }).role = 'Admin';
    }).toThrow(TypeError);
    expect(services.apiKeys.authenticate(k.accessKey, k.secretKey)).toMatchObject({ role: 'Analyst' });

    await services.users.update(ctx, userId, { role: 'ReadOnly' });
    const after = await services.apiKeys.authenticate(k.accessKey, k.secretKey);
    expect(after).toMatchObject({ apiKeyId: k.id, role: 'ReadOnly' });
    await services.users.update(ctx, userId, { role: 'Analyst' });
  });
});
