import { expect } from 'vitest';
import { authHeaders, type Credentials, type TestApp } from './app.js';

/** A call to the API as a user (API key), as a scan node (its key), or anonymously. */
export function apiCall(
  t: TestApp,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { who?: Credentials; nodeKey?: string; body?: unknown; channel?: string } = {},
) {
  return t.app.inject({
    method,
    url: `/api/${options.channel ?? 'latest'}${url}`,
    headers: {
      ...(options.who ? authHeaders(options.who) : {}),
      ...(options.nodeKey ? { authorization: `Bearer ${options.nodeKey}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
}

/** Enrols a node through the API with a fresh token of `admin`'s organisation. */
export async function enrolNode(
  t: TestApp,
  admin: Credentials,
  body: Record<string, unknown> = {},
): Promise<{ nodeId: string; nodeKey: string }> {
  const enrolment = await apiCall(t, 'POST', '/scannodes/enrolments', { who: admin, body: {} });
  expect(enrolment.statusCode, enrolment.body).toBe(201);
  const res = await apiCall(t, 'POST', '/scannodes/enrol', {
    body: { Token: enrolment.json().Token, Name: 'test node', Kinds: ['Discovery'], ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { nodeId: res.json().NodeId, nodeKey: res.json().NodeKey };
}

/** A 400 problem whose detail names `field`. */
export function expectBadRequest(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  field: string,
): void {
  expect(res.statusCode, res.body).toBe(400);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(res.body).toContain(field);
}
