import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../../src/http/channels.js';
import { EVENT_CATALOGUE, EVENT_TYPES, schemaComponentName } from '../../../src/modules/events/catalogue.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// GET /events/types lists the catalogue in both channels, and both OpenAPI documents carry every
// payload schema and the CloudEvents envelope as components.
describe('the events catalogue in the API', () => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let reader: Credentials;

  const get = (url: string, who?: Credentials, channel = 'latest') =>
    t.app.inject({ method: 'GET', url: `/api/${channel}${url}`, headers: who ? authHeaders(who) : {} });

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it.each(CHANNELS)(
    'lists every type with its version, description, facets and schema [%s]',
    async (channel) => {
      const res = await get('/events/types', analyst, channel);
      expect(res.statusCode, res.body).toBe(200);
      const items = res.json().Items as { Type: string; Schema: { properties: Record<string, unknown> } }[];
      expect(items.map((i) => i.Type)).toEqual(EVENT_TYPES);
      expect(items[0]).toMatchObject({
        Type: 'finding.created',
        CloudEventType: 'rampart.finding.created',
        Version: 1,
        DataSchema: 'urn:rampart:events:finding.created:v1',
        SchemaComponent: 'Event.finding.created.v1',
        Facets: ['severity', 'kev', 'riskScore', 'tags', 'assetIds', 'scanGroupIds'],
      });
      expect(Object.keys(items[0]!.Schema.properties)).toEqual(['Finding']);
    },
  );

  it('narrows the list to one type, and refuses a type that is not one', async () => {
    const one = await get('/events/types?Type=apikey.revoked', analyst);
    expect(one.json().Items.map((i: { Type: string }) => i.Type)).toEqual(['apikey.revoked']);
    const bad = await get('/events/types?Type=finding.exploded', analyst);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.body).toContain('Type');
    const misCased = await get('/events/types?Type=Finding.Created', analyst);
    expect(misCased.statusCode).toBe(400);
  });

  it('needs an Analyst: 401 without a key, 403 for ReadOnly', async () => {
    expect((await get('/events/types')).statusCode).toBe(401);
    const forbidden = await get('/events/types', reader);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it.each(CHANNELS)(
    'leaves the channel’s validation as strict as before the schemas were added [%s]',
    async (channel) => {
      // The event schemas give the channel its own schema store; bodies must still be checked by
      // Rampart's compilers (mis-cased names refused with a suggestion, no coercion).
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${channel}/findings`,
        headers: { ...authHeaders(analyst), 'content-type': 'application/json' },
        payload: JSON.stringify({
          assetId: '01900000-0000-7000-8000-000000000000',
          Vulnerability: { Title: 'x', Severity: 'Low' },
        }),
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors.map((e: { suggestion?: string }) => e.suggestion)).toContain('AssetId');
    },
  );

  it.each(CHANNELS)('carries every payload schema and the envelope in the %s document', async (channel) => {
    const doc = (await t.app.inject({ method: 'GET', url: `/apidoc/${channel}/documentation.json` })).json();
    const schemas = doc.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
    for (const type of EVENT_TYPES) {
      const component = schemas[schemaComponentName(type)];
      expect(component, type).toBeDefined();
      expect(Object.keys(component!.properties ?? {})).toEqual(
        Object.keys((EVENT_CATALOGUE[type].schema as { properties: object }).properties),
      );
    }
    expect(Object.keys(schemas.CloudEvent?.properties ?? {})).toEqual([
      'specversion',
      'id',
      'source',
      'type',
      'subject',
      'time',
      'datacontenttype',
      'dataschema',
      'data',
    ]);
  });
});
