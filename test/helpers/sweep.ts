import { readFileSync } from 'node:fs';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { RegisteredRoute } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { nessusReport } from '../modules/imports/nessus-report.js';
import { authHeaders, type Credentials, type TestApp } from './app.js';

/**
 * Shared by the access sweeps (roles, CSRF): one organisation with one of everything, a valid
 * call for every route that changes something or needs more than ReadOnly, and a fingerprint of
 * the whole database to prove that refused calls changed nothing.
 */

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Estate {
  asset: string;
  webApp: string;
  software: string;
  finding: string;
  otherFinding: string;
  ticket: string;
  /** An Analyst of the organisation whom the sweeps aim user changes at. */
  user: string;
  /** An intelligence load (installation-wide, read by Admins). */
  load: string;
  /** A background job of the organisation (read by Admins). */
  job: string;
  /** A scan node enrolled in the organisation (Admins read and revoke it). */
  scanNode: string;
  /** A scan run of the organisation (Admins read it; Managers stop it). */
  scanRun: string;
  /** An allowed scan target of the organisation (removed by Admins). */
  allowedTarget: string;
  /** A scan template of the organisation's own (changed and deleted by Admins). */
  scanTemplate: string;
  /** A discovery scan (changed by Managers, run and stopped by Analysts). */
  discoveryScan: string;
  /** Another, for the sweep that deletes one. */
  discoveryScanToDelete: string;
  /** A web scan (changed by Managers, run and stopped by Analysts), and one to delete. */
  webScan: string;
  webScanToDelete: string;
  /** A scan group (changed by Managers), and one to delete. */
  scanGroup: string;
  scanGroupToDelete: string;
  /** A system scan (changed by Managers, run and stopped by Analysts). */
  systemScan: string;
  systemScanToDelete: string;
  /** A webhook endpoint (to a closed loopback port), one to delete, a rule, one to delete, a delivery. */
  notificationEndpoint: string;
  notificationEndpointToDelete: string;
  notificationRule: string;
  notificationRuleToDelete: string;
  notificationDelivery: string;
  /** A report (queued), one to delete, a report definition and one to delete. */
  report: string;
  reportToDelete: string;
  reportDefinition: string;
  reportDefinitionToDelete: string;
  /** A single sign-on provider (changed by Admins), and one to delete; never reached (disabled). */
  ssoProvider: string;
  ssoProviderToDelete: string;
}

/**
 * A report any finding of the estate fills, whatever state the sweeps have moved them to (an ad hoc
 * report of no finding is a 422).
 */
const ANY_FINDING_REPORT = {
  Kind: 'Technical',
  Format: 'Csv',
  Filter: { State: ['Open', 'Reopened', 'Fixed', 'RiskAccepted', 'FalsePositive'], Confidence: 'Any' },
};

/** Where the estate's webhooks point: a loopback port nothing listens on (deliveries fail, nothing leaves). */
export const CLOSED_LOOPBACK_URL = 'http://127.0.0.1:9/estate';

export const TEMPLATE_SETTINGS = {
  Ports: [22, 80],
  TimeoutMs: 500,
  Retries: 0,
  MaxInFlight: 16,
  ConnectionsPerSecond: 50,
  PerHostInFlight: 2,
  ReverseDns: false,
  UseNmap: false,
};

export interface SweepCall {
  path: string;
  /** JSON body, or a raw payload with its content type. */
  body?: unknown;
  payload?: string | Buffer;
  contentType?: string;
}

/** `METHOD /path` of a route without its channel prefix, as written in the call tables. */
export function routeKey(r: RegisteredRoute): string {
  return `${r.method} ${r.channel ? r.url.replace(`/api/${r.channel}`, '') : r.url}`;
}

export function isStateChanging(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
}

const OSV_ADVISORY = readFileSync(new URL('../fixtures/intel/osv/GHSA-27h2-hvpr-p74q.json', import.meta.url));

let unique = 0;

/**
 * A call each route would accept from a caller allowed to make it: a real id of the estate and a
 * body that passes validation. A route that changes something and is missing here makes the
 * sweeps fail, so that no new route escapes them.
 */
export function sweepCalls(e: Estate): Record<string, () => SweepCall> {
  const n = () => {
    unique += 1;
    return unique;
  };
  return {
    'POST /account/password': () => ({
      path: '/account/password',
      body: { CurrentPassword: 'wrong but well formed', NewPassword: 'a brand new passphrase' },
    }),
    'POST /users': () => ({ path: '/users', body: { Email: `swept-${n()}@example.com`, Role: 'ReadOnly' } }),
    // Installation Admins only (the caller must be one to succeed); names are unique.
    'POST /installation/organizations': () => ({
      path: '/installation/organizations',
      body: { Name: `Swept organisation ${n()}` },
    }),
    'PATCH /users/:Id': () => ({ path: `/users/${e.user}`, body: { Role: 'ReadOnly' } }),
    'POST /users/:Id/password': () => ({ path: `/users/${e.user}/password`, body: {} }),
    // Second factors (docs/mfa.md): refused for want of a right code or password unless a sweep
    // gives its own (the CSRF sweep does, for the user it signs in as).
    'DELETE /users/:Id/mfa': () => ({ path: `/users/${e.user}/mfa` }),
    'POST /account/mfa/enrolment': () => ({ path: '/account/mfa/enrolment', body: {} }),
    'POST /account/mfa/enrolment/confirm': () => ({
      path: '/account/mfa/enrolment/confirm',
      body: { Code: '000000' },
    }),
    'POST /account/mfa/recoverycodes': () => ({
      path: '/account/mfa/recoverycodes',
      body: { Password: 'wrong but well formed' },
    }),
    'POST /account/mfa/disable': () => ({
      path: '/account/mfa/disable',
      body: { Password: 'wrong but well formed' },
    }),
    'POST /apikeys': () => ({ path: '/apikeys', body: { Name: `swept ${n()}` } }),
    'POST /assets': () => ({
      path: '/assets',
      body: { Kind: 'Host', Name: `swept-${n()}`, IpAddresses: ['10.66.0.9'] },
    }),
    'PATCH /assets/:Id': () => ({ path: `/assets/${e.asset}`, body: { Criticality: 1 } }),
    'DELETE /assets/:Id': () => ({ path: `/assets/${e.webApp}` }),
    'POST /assets/bulk/tags': () => ({ path: '/assets/bulk/tags', body: { Filter: {}, Add: ['swept'] } }),
    'POST /assets/:Id/services': () => ({
      path: `/assets/${e.asset}/services`,
      body: { Port: 8080 + n(), Protocol: 'tcp' },
    }),
    'POST /assets/:Id/software': () => ({
      path: `/assets/${e.asset}/software`,
      body: { Name: `swept-pkg-${n()}`, Version: '1' },
    }),
    'DELETE /assets/:Id/software/:SoftwareId': () => ({ path: `/assets/${e.asset}/software/${e.software}` }),
    'POST /findings': () => ({
      path: '/findings',
      body: { AssetId: e.asset, Vulnerability: { Title: `swept ${n()}`, Severity: 'Low' } },
    }),
    'POST /findings/:Id/state': () => ({
      path: `/findings/${e.finding}/state`,
      body: { State: 'FalsePositive', Justification: 'swept' },
    }),
    'POST /findings/:Id/severity': () => ({
      path: `/findings/${e.finding}/severity`,
      body: { Severity: 'Low', Reason: 'swept' },
    }),
    'POST /findings/bulk/state': () => ({
      path: '/findings/bulk/state',
      body: { Filter: {}, State: 'FalsePositive', Justification: 'swept' },
    }),
    'POST /findings/bulk/ticket': () => ({
      path: '/findings/bulk/ticket',
      body: { Filter: {}, TicketId: e.ticket },
    }),
    'PUT /settings': () => ({
      path: '/settings',
      body: { SlaDays: { Critical: 1, High: 2, Medium: 3, Low: 4, Info: null } },
    }),
    'POST /tickets': () => ({ path: '/tickets', body: { Title: `swept ${n()}` } }),
    'PATCH /tickets/:Id': () => ({ path: `/tickets/${e.ticket}`, body: { Priority: 'Low' } }),
    'POST /tickets/:Id/comments': () => ({ path: `/tickets/${e.ticket}/comments`, body: { Body: 'swept' } }),
    'POST /tickets/:Id/findings/link': () => ({
      path: `/tickets/${e.ticket}/findings/link`,
      body: { FindingIds: [e.otherFinding] },
    }),
    'POST /tickets/:Id/findings/unlink': () => ({
      path: `/tickets/${e.ticket}/findings/unlink`,
      body: { FindingIds: [e.finding] },
    }),
    'POST /intel/match': () => ({
      path: '/intel/match',
      body: { Cpes: ['cpe:2.3:a:openbsd:openssh:8.9:*:*:*:*:*:*:*'] },
    }),
    'GET /intel/loads/:Id': () => ({ path: `/intel/loads/${e.load}` }),
    'HEAD /intel/loads/:Id': () => ({ path: `/intel/loads/${e.load}` }),
    'POST /scannodes/enrolments': () => ({ path: '/scannodes/enrolments', body: {} }),
    'GET /scannodes/:Id': () => ({ path: `/scannodes/${e.scanNode}` }),
    'HEAD /scannodes/:Id': () => ({ path: `/scannodes/${e.scanNode}` }),
    'DELETE /scannodes/:Id': () => ({ path: `/scannodes/${e.scanNode}` }),
    'GET /scanruns/:Id': () => ({ path: `/scanruns/${e.scanRun}` }),
    'HEAD /scanruns/:Id': () => ({ path: `/scanruns/${e.scanRun}` }),
    'POST /scanruns/:Id/stop': () => ({ path: `/scanruns/${e.scanRun}/stop` }),
    'GET /jobs/:Id': () => ({ path: `/jobs/${e.job}` }),
    'HEAD /jobs/:Id': () => ({ path: `/jobs/${e.job}` }),
    'POST /allowedtargets': () => ({
      path: '/allowedtargets',
      body: { Kind: 'Allowed', Target: `swept-${n()}.example.com` },
    }),
    'DELETE /allowedtargets/:Id': () => ({ path: `/allowedtargets/${e.allowedTarget}` }),
    'POST /allowedtargets/check': () => ({
      path: '/allowedtargets/check',
      body: { Targets: [{ Range: '198.18.0.0/24' }] },
    }),
    'POST /scantemplates': () => ({
      path: '/scantemplates',
      body: { Name: `Swept template ${n()}`, Settings: TEMPLATE_SETTINGS },
    }),
    'PUT /scantemplates/:Id': () => ({
      path: `/scantemplates/${e.scanTemplate}`,
      body: { Name: `Swept template ${n()}`, Settings: TEMPLATE_SETTINGS },
    }),
    'DELETE /scantemplates/:Id': () => ({ path: `/scantemplates/${e.scanTemplate}` }),
    // Accepted by both channels' POST /discoveryscans (the integration one takes our body too).
    'POST /discoveryscans': () => ({
      path: '/discoveryscans',
      body: { Name: `Swept scan ${n()}`, ScanTargets: [{ Range: '198.18.0.0/28' }] },
    }),
    'PUT /discoveryscans/:Id': () => ({
      path: `/discoveryscans/${e.discoveryScan}`,
      body: { Name: `Swept scan ${n()}`, ScanTargets: [{ Range: '198.18.0.0/28' }] },
    }),
    'DELETE /discoveryscans/:Id': () => ({ path: `/discoveryscans/${e.discoveryScanToDelete}` }),
    // Queued (no node runs in these apps), then stopped; the original's start queues it again.
    'POST /discoveryscans/:Id/runs': () => ({ path: `/discoveryscans/${e.discoveryScan}/runs` }),
    'POST /discoveryscans/:Id/stop': () => ({ path: `/discoveryscans/${e.discoveryScan}/stop` }),
    'PUT /discoveryscans/:Id/start': () => ({ path: `/discoveryscans/${e.discoveryScan}/start` }),
    'POST /discoveryscans/withstartindex/:StartIndex/andpagesize/:PageSize': () => ({
      path: '/discoveryscans/withstartindex/0/andpagesize/10',
      body: {},
    }),
    'POST /discoveryscans/:Id/reports/latest/hosts/withStartIndex/:StartIndex/andPageSize/:PageSize': () => ({
      path: `/discoveryscans/${e.discoveryScan}/reports/latest/hosts/withStartIndex/0/andPageSize/10`,
      body: {},
    }),
    'POST /webscans': () => ({
      path: '/webscans',
      body: { Name: `Swept web scan ${n()}`, Urls: ['http://198.18.0.5/'] },
    }),
    'PUT /webscans/:Id': () => ({
      path: `/webscans/${e.webScan}`,
      body: { Name: `Swept web scan ${n()}`, Urls: ['http://198.18.0.5/'] },
    }),
    'DELETE /webscans/:Id': () => ({ path: `/webscans/${e.webScanToDelete}` }),
    // Queued (no node runs in these apps), then stopped.
    'POST /webscans/:Id/start': () => ({ path: `/webscans/${e.webScan}/start` }),
    'POST /webscans/:Id/stop': () => ({ path: `/webscans/${e.webScan}/stop` }),
    'POST /webscans/:Id/reports/latest/vulnerabilitiesandfindings/withstartindex/:StartIndex/andpagesize/:PageSize':
      () => ({
        path: `/webscans/${e.webScan}/reports/latest/vulnerabilitiesandfindings/withstartindex/0/andpagesize/10`,
        body: {},
      }),
    // Both channels take the original's body.
    'POST /scangroups': () => ({ path: '/scangroups', body: { ScanGroupName: `Swept group ${n()}` } }),
    'PUT /scangroups/:Id': () => ({
      path: `/scangroups/${e.scanGroup}`,
      body: { ScanGroupName: `Swept group ${n()}`, MaxSystemScans: '5' },
    }),
    'DELETE /scangroups/:Id': () => ({ path: `/scangroups/${e.scanGroupToDelete}` }),
    'POST /systemscans': () => ({
      path: '/systemscans',
      body: { Name: `Swept system scan ${n()}`, ScanTargets: [{ Range: '198.18.0.0/28' }] },
    }),
    'PUT /systemscans/:Id': () => ({
      path: `/systemscans/${e.systemScan}`,
      body: { Name: `Swept system scan ${n()}`, ScanTargets: [{ Range: '198.18.0.0/28' }] },
    }),
    'DELETE /systemscans/:Id': () => ({ path: `/systemscans/${e.systemScanToDelete}` }),
    'POST /systemscans/:Id/start': () => ({ path: `/systemscans/${e.systemScan}/start` }),
    'POST /systemscans/:Id/stop': () => ({ path: `/systemscans/${e.systemScan}/stop` }),
    // The estate's findings were imported, not found by a Rampart scan: answered as skipped.
    'POST /findings/verify': () => ({ path: '/findings/verify', body: { FindingIds: [e.finding] } }),
    'POST /tickets/:Id/verify': () => ({ path: `/tickets/${e.ticket}/verify` }),
    'POST /demo': () => ({ path: '/demo', body: {} }),
    'DELETE /demo': () => ({ path: '/demo' }),
    'DELETE /session': () => ({ path: '/session' }),
    'POST /imports': () => ({
      path: '/imports',
      contentType: 'application/xml',
      payload: nessusReport([
        { ip: '10.66.0.1', items: [{ plugin: '990001', name: `Swept plugin ${n()}`, severity: 2 }] },
      ]),
    }),
    'POST /intel/loads': () => ({
      path: '/intel/loads',
      contentType: 'application/octet-stream',
      payload: OSV_ADVISORY,
    }),
    'POST /assets/withstartindex/:StartIndex/andpagesize/:PageSize': () => ({
      path: '/assets/withstartindex/0/andpagesize/10',
      body: {},
    }),
    'POST /assets/:AssetId/reports/latest/vulnerabilitiesandfindings/withStartIndex/:StartIndex/andPageSize/:PageSize':
      () => ({
        path: `/assets/${e.asset}/reports/latest/vulnerabilitiesandfindings/withStartIndex/0/andPageSize/10`,
        body: { Findings: 'All' },
      }),
    'POST /assets/installedsoftware/withStartIndex/:StartIndex/andPageSize/:PageSize': () => ({
      path: '/assets/installedsoftware/withStartIndex/0/andPageSize/10',
      body: { AssetHostId: e.asset, SortPrimary: 'Name' },
    }),
    'GET /notifications/endpoints/:Id': () => ({
      path: `/notifications/endpoints/${e.notificationEndpoint}`,
    }),
    'HEAD /notifications/endpoints/:Id': () => ({
      path: `/notifications/endpoints/${e.notificationEndpoint}`,
    }),
    'HEAD /notifications/endpoints/:Id/deliveries': () => ({
      path: `/notifications/endpoints/${e.notificationEndpoint}/deliveries`,
    }),
    'HEAD /notifications/deliveries/:Id': () => ({
      path: `/notifications/deliveries/${e.notificationDelivery}`,
    }),
    'HEAD /notifications/rules/:Id': () => ({ path: `/notifications/rules/${e.notificationRule}` }),
    'POST /notifications/endpoints': () => ({
      path: '/notifications/endpoints',
      body: { Name: `swept ${n()}`, Kind: 'Webhook', Url: CLOSED_LOOPBACK_URL },
    }),
    'PATCH /notifications/endpoints/:Id': () => ({
      path: `/notifications/endpoints/${e.notificationEndpoint}`,
      body: { RatePerMinute: 30 },
    }),
    'POST /notifications/endpoints/:Id/enable': () => ({
      path: `/notifications/endpoints/${e.notificationEndpoint}/enable`,
    }),
    'POST /notifications/endpoints/:Id/test': () => ({
      path: `/notifications/endpoints/${e.notificationEndpoint}/test`,
    }),
    'DELETE /notifications/endpoints/:Id': () => ({
      path: `/notifications/endpoints/${e.notificationEndpointToDelete}`,
    }),
    'GET /notifications/endpoints/:Id/deliveries': () => ({
      path: `/notifications/endpoints/${e.notificationEndpoint}/deliveries`,
    }),
    'GET /notifications/deliveries/:Id': () => ({
      path: `/notifications/deliveries/${e.notificationDelivery}`,
    }),
    'POST /notifications/deliveries/:Id/redeliver': () => ({
      path: `/notifications/deliveries/${e.notificationDelivery}/redeliver`,
    }),
    'POST /reports': () => ({
      path: '/reports',
      body: { Name: `swept ${n()}`, ...ANY_FINDING_REPORT },
    }),
    'POST /reportdefinitions': () => ({
      path: '/reportdefinitions',
      body: { Name: `swept ${n()}`, Kind: 'Executive', Format: 'Csv' },
    }),
    'PUT /account/notifications': () => ({
      path: '/account/notifications',
      body: { EventTypes: ['scan.completed'], Mode: 'Immediate' },
    }),
    'POST /notifications/rules': () => ({
      path: '/notifications/rules',
      body: { Name: `swept ${n()}`, EventTypes: ['scan.completed'], EndpointIds: [e.notificationEndpoint] },
    }),
    'GET /notifications/rules/:Id': () => ({ path: `/notifications/rules/${e.notificationRule}` }),
    'PATCH /notifications/rules/:Id': () => ({
      path: `/notifications/rules/${e.notificationRule}`,
      body: { Enabled: true },
    }),
    'DELETE /notifications/rules/:Id': () => ({ path: `/notifications/rules/${e.notificationRuleToDelete}` }),
    'GET /reports/:Id': () => ({ path: `/reports/${e.report}` }),
    'GET /reports/:Id/download': () => ({ path: `/reports/${e.report}/download` }),
    'DELETE /reports/:Id': () => ({ path: `/reports/${e.reportToDelete}` }),
    'GET /reportdefinitions/:Id': () => ({ path: `/reportdefinitions/${e.reportDefinition}` }),
    'PUT /reportdefinitions/:Id': () => ({
      path: `/reportdefinitions/${e.reportDefinition}`,
      body: { Name: `swept ${n()}`, Kind: 'Executive', Format: 'Csv' },
    }),
    'DELETE /reportdefinitions/:Id': () => ({ path: `/reportdefinitions/${e.reportDefinitionToDelete}` }),
    'POST /reportdefinitions/:Id/run': () => ({ path: `/reportdefinitions/${e.reportDefinition}/run` }),
    'POST /ssoproviders': () => ({
      path: '/ssoproviders',
      body: {
        Name: `Swept SSO ${n()}`,
        IssuerUrl: 'https://login.example.com/swept',
        ClientId: `swept-${n()}`,
      },
    }),
    'GET /ssoproviders/:Id': () => ({ path: `/ssoproviders/${e.ssoProvider}` }),
    'HEAD /ssoproviders/:Id': () => ({ path: `/ssoproviders/${e.ssoProvider}` }),
    'PATCH /ssoproviders/:Id': () => ({
      path: `/ssoproviders/${e.ssoProvider}`,
      body: { RoleMappings: [{ Group: `swept-${n()}`, Role: 'Analyst' }] },
    }),
    'DELETE /ssoproviders/:Id': () => ({ path: `/ssoproviders/${e.ssoProviderToDelete}` }),
    // Off: on would refuse the sweeps' own password sign-ins.
    'PUT /ssosettings': () => ({ path: '/ssosettings', body: { SsoOnly: false } }),
    'POST /things/withStartIndex/:StartIndex/andPageSize/:PageSize': () => ({
      path: '/things/withStartIndex/0/andPageSize/10',
      body: {},
    }),
  };
}

/** The call for a route, or undefined when the table lacks one it needs (a body or an id). */
export function callFor(calls: Record<string, () => SweepCall>, r: RegisteredRoute): SweepCall | undefined {
  const key = routeKey(r);
  const known = calls[key];
  if (known) return known();
  if (isStateChanging(r.method) || r.url.includes('/:')) return undefined;
  return { path: key.slice(key.indexOf(' ') + 1) };
}

/** The request for a call, as a client with `headers` (an API key's, or a browser's) sends it. */
export function requestFor(
  r: RegisteredRoute,
  call: SweepCall,
  headers: Record<string, string>,
): InjectOptions {
  const payload = call.payload ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  const contentType = call.contentType ?? (call.body === undefined ? undefined : 'application/json');
  return {
    method: r.method as Method,
    url: `/api/${r.channel}${call.path}`,
    headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}) },
    ...(payload === undefined ? {} : { payload }),
  };
}

/** Builds the estate through the API as `admin`, and waits for its import and intel load. */
export async function populate(t: TestApp, admin: Credentials): Promise<Estate> {
  const ok = async (method: Method, url: string, body?: unknown) => {
    const res = await t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: {
        ...authHeaders(admin),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  const asset = await ok('POST', '/assets', {
    Kind: 'Host',
    Name: 'estate-host',
    IpAddresses: ['10.66.0.1'],
  });
  const webApp = await ok('POST', '/assets', { Kind: 'WebApplication', Url: 'https://estate.example.com/' });
  const software = await ok('POST', `/assets/${asset.Id}/software`, { Name: 'estate-pkg', Version: '1' });
  const finding = await ok('POST', '/findings', {
    AssetId: asset.Id,
    Vulnerability: { Title: 'estate vulnerability', Severity: 'High', Cve: ['CVE-2024-6387'] },
  });
  const otherFinding = await ok('POST', '/findings', {
    AssetId: asset.Id,
    Vulnerability: { Title: 'another estate vulnerability', Severity: 'Medium' },
  });
  const ticket = await ok('POST', '/tickets', { Title: 'estate ticket', FindingIds: [finding.Id] });
  const user = await ok('POST', '/users', { Email: 'estate-analyst@example.com', Role: 'Analyst' });
  const loaded = await t.app.inject({
    method: 'POST',
    url: '/api/latest/intel/loads',
    headers: { ...authHeaders(admin), 'content-type': 'application/octet-stream' },
    payload: OSV_ADVISORY,
  });
  expect(loaded.statusCode, loaded.body).toBe(202);
  // Loads run in the background; wait for this one to end.
  for (let i = 0; i < 400; i++) {
    if ((await ok('GET', `/intel/loads/${loaded.json().Id}`)).State !== 'Running') break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  // Nothing enqueues jobs through the API: the queue takes one directly.
  const job = await t.services.jobs.enqueueUnchecked(
    'estate',
    { estate: true },
    { organizationId: t.org.id },
  );
  const enrolment = await ok('POST', '/scannodes/enrolments', {});
  const scanNode = (
    await t.app.inject({
      method: 'POST',
      url: '/api/latest/scannodes/enrol',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ Token: enrolment.Token, Name: 'estate node' }),
    })
  ).json().NodeId as string;
  // Runs are queued by the scans that own them, not through the API.
  const scanRun = await t.services.scanRuns.queue(
    { organizationId: t.org.id, actor: { type: 'system', id: null } },
    {
      kind: 'Discovery',
      sourceId: '0193a5c4-7f10-7c3e-9d41-0000000e57a7',
      sourceName: 'estate scan',
      nodeId: null,
      spec: {},
    },
  );
  const allowedTarget = await ok('POST', '/allowedtargets', { Kind: 'Allowed', Target: '198.18.0.0/24' });
  const scanTemplate = await ok('POST', '/scantemplates', {
    Name: 'Estate template',
    Settings: TEMPLATE_SETTINGS,
  });
  const scan = (name: string) =>
    ok('POST', '/discoveryscans', { Name: name, ScanTargets: [{ Range: '198.18.0.0/28' }] });
  const discoveryScan = await scan('Estate scan');
  const discoveryScanToDelete = await scan('Estate scan to delete');
  const webScan = (name: string) => ok('POST', '/webscans', { Name: name, Urls: ['http://198.18.0.5/'] });
  const group = (name: string) =>
    ok('POST', '/scangroups', {
      ScanGroupName: name,
      AssetMonitoringConfigurations: [{ DiscoveryScanId: discoveryScan.Id, TrackWebScans: 'true' }],
    });
  const systemScan = (name: string) =>
    ok('POST', '/systemscans', { Name: name, ScanTargets: [{ Range: '198.18.0.0/28' }] });
  const estateSystemScan = await systemScan('Estate system scan');
  const systemScanToDelete = await systemScan('Estate system scan to delete');
  const endpoint = (name: string) =>
    ok('POST', '/notifications/endpoints', { Name: name, Kind: 'Webhook', Url: CLOSED_LOOPBACK_URL });
  const notificationEndpoint = await endpoint('Estate webhook');
  const notificationEndpointToDelete = await endpoint('Estate webhook to delete');
  const rule = (name: string) =>
    ok('POST', '/notifications/rules', {
      Name: name,
      EventTypes: ['finding.created'],
      EndpointIds: [notificationEndpoint.Id],
    });
  const notificationRule = await rule('Estate rule');
  const notificationRuleToDelete = await rule('Estate rule to delete');
  // A delivery for the log and redelivery: sent at once to the closed port, it fails and waits
  // for a retry the test's clock never reaches. Waited for, so that nothing changes afterwards.
  const delivery = await ok('POST', `/notifications/endpoints/${notificationEndpoint.Id}/test`);
  // Up to 30 s: on a loaded machine the send and its failure take a while.
  for (let i = 0; i < 1200; i++) {
    if ((await ok('GET', `/notifications/deliveries/${delivery.Id}`)).State === 'Failed') break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  // Disabled, so that nothing would ever reach its (example) issuer.
  const ssoProvider = (name: string) =>
    ok('POST', '/ssoproviders', {
      Name: name,
      IssuerUrl: `https://login.example.com/${name.replace(/\W+/g, '-')}`,
      ClientId: 'rampart',
      Enabled: false,
    });
  const estateSsoProvider = await ssoProvider('Estate SSO');
  const ssoProviderToDelete = await ssoProvider('Estate SSO to delete');
  const report = (name: string) => ok('POST', '/reports', { Name: name, ...ANY_FINDING_REPORT });
  const reportDefinition = (name: string) =>
    ok('POST', '/reportdefinitions', { Name: name, Kind: 'Executive', Format: 'Csv' });
  const estateReport = await report('Estate report');
  const reportToDelete = await report('Estate report to delete');
  const estateDefinition = await reportDefinition('Estate definition');
  const definitionToDelete = await reportDefinition('Estate definition to delete');
  // Made by the background job: waited for, so that nothing changes afterwards.
  for (const r of [estateReport, reportToDelete])
    for (let i = 0; i < 400; i++) {
      if (['Completed', 'Failed'].includes((await ok('GET', `/reports/${r.Id}`)).State)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  // The estate's own events (findings created, …) dispatched and their deliveries tried: the
  // sweeps then compare tables that nothing in the background still changes.
  for (let i = 0; i < 1200; i++) {
    const log = await ok('GET', `/notifications/endpoints/${notificationEndpoint.Id}/deliveries`);
    const settled = (log.Items as { State: string }[]).every(
      (d) => d.State !== 'Pending' && d.State !== 'Delivering',
    );
    if (settled && !(await t.services.events.hasPending())) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    ssoProvider: estateSsoProvider.Id,
    ssoProviderToDelete: ssoProviderToDelete.Id,
    report: estateReport.Id,
    reportToDelete: reportToDelete.Id,
    reportDefinition: estateDefinition.Id,
    reportDefinitionToDelete: definitionToDelete.Id,
    notificationEndpoint: notificationEndpoint.Id,
    notificationEndpointToDelete: notificationEndpointToDelete.Id,
    notificationRule: notificationRule.Id,
    notificationRuleToDelete: notificationRuleToDelete.Id,
    notificationDelivery: delivery.Id,
    asset: asset.Id,
    webApp: webApp.Id,
    software: software.Id,
    finding: finding.Id,
    otherFinding: otherFinding.Id,
    ticket: ticket.Id,
    user: user.Id,
    load: loaded.json().Id,
    job,
    scanNode,
    scanRun: scanRun.id,
    allowedTarget: allowedTarget.Id,
    scanTemplate: scanTemplate.Id,
    discoveryScan: discoveryScan.Id,
    discoveryScanToDelete: discoveryScanToDelete.Id,
    webScan: (await webScan('Estate web scan')).Id,
    webScanToDelete: (await webScan('Estate web scan to delete')).Id,
    scanGroup: (await group('Estate group')).Id,
    scanGroupToDelete: (await group('Estate group to delete')).Id,
    systemScan: estateSystemScan.Id,
    systemScanToDelete: systemScanToDelete.Id,
  };
}

/**
 * One digest per table of every row, so that two fingerprints differ when any row was added,
 * removed or changed. The times a key or session was last used may move: an authenticated but
 * refused call is still a use.
 */
export async function fingerprint(database: Database): Promise<Record<string, string>> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(
    database.db,
  );
  const out: Record<string, string> = {};
  for (const { table_name } of tables.rows) {
    const { rows } = await sql<{ n: string; digest: string | null }>`
      select count(*) as n,
        md5(string_agg((to_jsonb(t) - 'last_used_at' - 'last_seen_at')::text, '|'
          order by (to_jsonb(t) - 'last_used_at' - 'last_seen_at')::text)) as digest
      from ${sql.table(table_name)} t`.execute(database.db);
    out[table_name] = `${rows[0]!.n} ${rows[0]!.digest ?? ''}`;
  }
  return out;
}

// The tables the background work writes on its own (events dispatched, jobs, deliveries retried).
const BACKGROUND_TABLES = [
  'event_outbox',
  'event_marks',
  'jobs',
  'notification_deliveries',
  'notification_attempts',
  'notification_email_queue',
];

/**
 * The fingerprint of what requests change, without the tables background work keeps writing (a
 * delivery to the estate's closed port is retried at any moment): for a sweep that starts while
 * that work still moves.
 */
export async function requestFingerprint(database: Database): Promise<Record<string, string>> {
  const all = await fingerprint(database);
  for (const table of BACKGROUND_TABLES) delete all[table];
  return all;
}

/** A refusal: `status`, a problem document of the catalogue's `slug`. */
export function expectProblem(res: LightMyRequestResponse, status: number, slug: string, what: string): void {
  expect(res.statusCode, `${what}: ${res.body}`).toBe(status);
  expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/);
  // A HEAD answer has the headers of the problem but no body.
  if (res.body !== '') expect(res.json().type, what).toMatch(new RegExp(`/problems/${slug}$`));
}
