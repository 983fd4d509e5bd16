import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { dataSchemaUri, EVENT_TYPES } from '../../../src/modules/events/catalogue.js';
import { eventSource, toCloudEvent } from '../../../src/modules/events/envelope.js';
import type { StoredEvent } from '../../../src/modules/events/types.js';

// CloudEvents 1.0 (spec.md, "Context Attributes"; json-format.md): the REQUIRED attributes id,
// source, specversion and type are non-empty strings, specversion is "1.0"; the OPTIONAL ones
// used here have their types: time an RFC 3339 timestamp, dataschema a URI, subject a non-empty
// string, datacontenttype an RFC 2046 media type; attribute names are lower-case a–z and 0–9.
const CloudEvent = Type.Object(
  {
    specversion: Type.Literal('1.0'),
    id: Type.String({ minLength: 1 }),
    source: Type.String({ minLength: 1, format: 'uri-reference' }),
    type: Type.String({ minLength: 1 }),
    subject: Type.Optional(Type.String({ minLength: 1 })),
    time: Type.String({ format: 'date-time' }),
    datacontenttype: Type.Literal('application/json'),
    dataschema: Type.String({ format: 'uri' }),
    data: Type.Unknown(),
  },
  { additionalProperties: false },
);

const stored = (over: Partial<StoredEvent> = {}): StoredEvent => ({
  organizationId: '01900000-0000-7000-8000-0000000000aa',
  id: '01900000-0000-7000-8000-0000000000bb',
  type: 'finding.created',
  schemaVersion: 1,
  time: new Date('2026-11-21T12:00:00.123Z'),
  subject: 'findings/01900000-0000-7000-8000-0000000000cc',
  data: { Finding: { Id: '01900000-0000-7000-8000-0000000000cc' } },
  facets: { severity: 'High' },
  ...over,
});

describe('the CloudEvents envelope', () => {
  it('carries the required attributes of CloudEvents 1.0 and ours', () => {
    const e = toCloudEvent(stored());
    expect([...Value.Errors(CloudEvent, e)]).toEqual([]);
    expect(e).toEqual({
      specversion: '1.0',
      id: '01900000-0000-7000-8000-0000000000bb',
      source: '/rampart/organizations/01900000-0000-7000-8000-0000000000aa',
      type: 'rampart.finding.created',
      subject: 'findings/01900000-0000-7000-8000-0000000000cc',
      time: '2026-11-21T12:00:00.123Z',
      datacontenttype: 'application/json',
      dataschema: 'urn:rampart:events:finding.created:v1',
      data: { Finding: { Id: '01900000-0000-7000-8000-0000000000cc' } },
    });
    for (const name of Object.keys(e)) expect(name).toMatch(/^[a-z0-9]{1,20}$/);
    // The facets are for rules, not receivers: they stay out of the envelope.
    expect(JSON.stringify(e)).not.toContain('facets');
  });

  it('leaves out a subject the event has none of, and names the version it was written with', () => {
    const e = toCloudEvent(stored({ subject: null, schemaVersion: 2, type: 'scan.started' }));
    expect(e).not.toHaveProperty('subject');
    expect(e.dataschema).toBe('urn:rampart:events:scan.started:v2');
    expect([...Value.Errors(CloudEvent, e)]).toEqual([]);
  });

  it('gives every type of the catalogue a rampart. type, a URN schema and an organisation source', () => {
    for (const type of EVENT_TYPES) {
      const e = toCloudEvent(stored({ type }));
      expect(e.type).toBe(`rampart.${type}`);
      expect(e.dataschema).toBe(dataSchemaUri(type));
      expect([...Value.Errors(CloudEvent, e)]).toEqual([]);
    }
    expect(eventSource('x')).toBe('/rampart/organizations/x');
  });
});
