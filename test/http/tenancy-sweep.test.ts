import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authHeaders,
  type Browser,
  buildTestApp,
  type Credentials,
  signInAs,
  type TestApp,
} from '../helpers/app.js';

const SWEEP_PASSWORD = 'correct horse battery staple';

import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { TEMPLATE_SETTINGS } from '../helpers/sweep.js';

/**
 * Every route, swept: an Admin of organisation B aims each route that takes an id at
 * organisation A's resources and gets 404; every list, count and export B can read holds none
 * of A's ids or names; and A's data is the same afterwards. A new route that takes an id fails
 * this test until it is added to FOREIGN_CALLS, so no route escapes the sweep.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Ids {
  asset: string;
  webApp: string;
  software: string;
  finding: string;
  vulnerability: string;
  pluginId: string;
  ticket: string;
  user: string;
  apiKey: string;
  import: string;
  job: string;
  scanNode: string;
  /** The key of that node: the node protocol's calls are made with it. */
  nodeKey: string;
  scanRun: string;
  scanTemplate: string;
  discoveryScan: string;
  systemScan: string;
  allowedTarget: string;
  webScan: string;
  scanGroup: string;
  notificationEndpoint: string;
  notificationRule: string;
  notificationDelivery: string;
  report: string;
  reportDefinition: string;
  ssoProvider: string;
}
interface Call {
  path: (a: Ids) => string;
  body?: (a: Ids, b: Ids) => unknown;
}

// Routes (channel prefix left out) that name a resource, with the call that aims them at A.
const FOREIGN_CALLS: Record<string, Call> = {
  'GET /assets/:Id': { path: (a) => `/assets/${a.asset}` },
  'PATCH /assets/:Id': { path: (a) => `/assets/${a.asset}`, body: () => ({ Criticality: 1 }) },
  'DELETE /assets/:Id': { path: (a) => `/assets/${a.webApp}` },
  'GET /assets/:Id/services': { path: (a) => `/assets/${a.asset}/services` },
  'POST /assets/:Id/services': {
    path: (a) => `/assets/${a.asset}/services`,
    body: () => ({ Port: 8080, Protocol: 'tcp' }),
  },
  'GET /assets/:Id/software': { path: (a) => `/assets/${a.asset}/software` },
  'POST /assets/:Id/software': { path: (a) => `/assets/${a.asset}/software`, body: () => ({ Name: 'evil' }) },
  'DELETE /assets/:Id/software/:SoftwareId': { path: (a) => `/assets/${a.asset}/software/${a.software}` },
  'GET /assethosts/asset/:AssetId': { path: (a) => `/assethosts/asset/${a.asset}` },
  'POST /assets/:AssetId/reports/latest/vulnerabilitiesandfindings/withStartIndex/:StartIndex/andPageSize/:PageSize':
    {
      path: (a) =>
        `/assets/${a.asset}/reports/latest/vulnerabilitiesandfindings/withStartIndex/0/andPageSize/10`,
      body: () => ({ Findings: 'All' }),
    },
  'POST /assets/installedsoftware/withStartIndex/:StartIndex/andPageSize/:PageSize': {
    path: () => '/assets/installedsoftware/withStartIndex/0/andPageSize/10',
    body: (a) => ({ AssetHostId: a.asset, SortPrimary: 'Name' }),
  },
  'GET /findings/:Id': { path: (a) => `/findings/${a.finding}` },
  'POST /findings/:Id/state': {
    path: (a) => `/findings/${a.finding}/state`,
    body: () => ({ State: 'FalsePositive', Justification: 'not ours' }),
  },
  'POST /findings/:Id/severity': {
    path: (a) => `/findings/${a.finding}/severity`,
    body: () => ({ Severity: 'Low', Reason: 'not ours' }),
  },
  'GET /vulnerabilities/:Id': { path: (a) => `/vulnerabilities/${a.vulnerability}` },
  'GET /vulnerabilities/systemscan/:PluginGuidId/detailed': {
    path: (a) => `/vulnerabilities/systemscan/${a.pluginId}/detailed`,
  },
  'GET /vulnerabilities/webscan/:PluginGuidId/detailed': {
    path: (a) => `/vulnerabilities/webscan/${a.vulnerability}/detailed`,
  },
  'GET /tickets/:Id': { path: (a) => `/tickets/${a.ticket}` },
  'PATCH /tickets/:Id': { path: (a) => `/tickets/${a.ticket}`, body: () => ({ State: 'Closed' }) },
  'POST /tickets/:Id/comments': {
    path: (a) => `/tickets/${a.ticket}/comments`,
    body: () => ({ Body: 'hi' }),
  },
  'POST /tickets/:Id/findings/link': {
    path: (a) => `/tickets/${a.ticket}/findings/link`,
    body: (_a, b) => ({ FindingIds: [b.finding] }),
  },
  'POST /tickets/:Id/findings/unlink': {
    path: (a) => `/tickets/${a.ticket}/findings/unlink`,
    body: (a) => ({ FindingIds: [a.finding] }),
  },
  'PATCH /users/:Id': { path: (a) => `/users/${a.user}`, body: () => ({ Role: 'ReadOnly' }) },
  'DELETE /users/:Id/mfa': { path: (a) => `/users/${a.user}/mfa` },
  'POST /users/:Id/password': { path: (a) => `/users/${a.user}/password`, body: () => ({}) },
  'DELETE /apikeys/:Id': { path: (a) => `/apikeys/${a.apiKey}` },
  'GET /imports/:Id': { path: (a) => `/imports/${a.import}` },
  'GET /jobs/:Id': { path: (a) => `/jobs/${a.job}` },
  'GET /scannodes/:Id': { path: (a) => `/scannodes/${a.scanNode}` },
  'DELETE /scannodes/:Id': { path: (a) => `/scannodes/${a.scanNode}` },
  'GET /scanruns/:Id': { path: (a) => `/scanruns/${a.scanRun}` },
  'POST /scanruns/:Id/stop': { path: (a) => `/scanruns/${a.scanRun}/stop` },
  // The node protocol: B's node aims at A's run.
  'PUT /scanruns/:Id/attempts/:Attempt/batches/:Seq': {
    path: (a) => `/scanruns/${a.scanRun}/attempts/1/batches/1`,
    body: () => ({ Items: [{ address: '127.0.0.1' }] }),
  },
  'POST /scanruns/:Id/attempts/:Attempt/finish': {
    path: (a) => `/scanruns/${a.scanRun}/attempts/1/finish`,
    body: () => ({ State: 'Completed' }),
  },
  'GET /scantemplates/:Id': { path: (a) => `/scantemplates/${a.scanTemplate}` },
  'PUT /scantemplates/:Id': {
    path: (a) => `/scantemplates/${a.scanTemplate}`,
    body: () => ({ Name: 'taken over', Settings: TEMPLATE_SETTINGS }),
  },
  'DELETE /scantemplates/:Id': { path: (a) => `/scantemplates/${a.scanTemplate}` },
  'GET /discoveryscans/:Id': { path: (a) => `/discoveryscans/${a.discoveryScan}` },
  'PUT /discoveryscans/:Id': {
    path: (a) => `/discoveryscans/${a.discoveryScan}`,
    body: () => ({ Name: 'taken over', ScanTargets: [{ Range: '198.18.0.0/28' }] }),
  },
  'DELETE /discoveryscans/:Id': { path: (a) => `/discoveryscans/${a.discoveryScan}` },
  'POST /discoveryscans/:Id/runs': { path: (a) => `/discoveryscans/${a.discoveryScan}/runs` },
  'POST /discoveryscans/:Id/stop': { path: (a) => `/discoveryscans/${a.discoveryScan}/stop` },
  'PUT /discoveryscans/:Id/start': { path: (a) => `/discoveryscans/${a.discoveryScan}/start` },
  'GET /discoveryscans/:Id/reports/:RunId/hosts': {
    path: (a) => `/discoveryscans/${a.discoveryScan}/reports/latest/hosts`,
  },
  'POST /discoveryscans/:Id/reports/latest/hosts/withStartIndex/:StartIndex/andPageSize/:PageSize': {
    path: (a) => `/discoveryscans/${a.discoveryScan}/reports/latest/hosts/withStartIndex/0/andPageSize/10`,
    body: () => ({}),
  },
  'GET /systemscans/:Id': { path: (a) => `/systemscans/${a.systemScan}` },
  'PUT /systemscans/:Id': {
    path: (a) => `/systemscans/${a.systemScan}`,
    body: () => ({ Name: 'taken over', ScanTargets: [{ Range: '198.18.0.0/28' }] }),
  },
  'DELETE /systemscans/:Id': { path: (a) => `/systemscans/${a.systemScan}` },
  'POST /systemscans/:Id/start': { path: (a) => `/systemscans/${a.systemScan}/start` },
  'POST /systemscans/:Id/stop': { path: (a) => `/systemscans/${a.systemScan}/stop` },
  'GET /systemscans/:Id/runs/latest': { path: (a) => `/systemscans/${a.systemScan}/runs/latest` },
  'POST /tickets/:Id/verify': { path: (a) => `/tickets/${a.ticket}/verify` },
  'DELETE /allowedtargets/:Id': { path: (a) => `/allowedtargets/${a.allowedTarget}` },
  'GET /notifications/endpoints/:Id': { path: (a) => `/notifications/endpoints/${a.notificationEndpoint}` },
  'PATCH /notifications/endpoints/:Id': {
    path: (a) => `/notifications/endpoints/${a.notificationEndpoint}`,
    body: () => ({ Name: 'taken over' }),
  },
  'DELETE /notifications/endpoints/:Id': {
    path: (a) => `/notifications/endpoints/${a.notificationEndpoint}`,
  },
  'POST /notifications/endpoints/:Id/enable': {
    path: (a) => `/notifications/endpoints/${a.notificationEndpoint}/enable`,
  },
  'POST /notifications/endpoints/:Id/test': {
    path: (a) => `/notifications/endpoints/${a.notificationEndpoint}/test`,
  },
  'GET /notifications/endpoints/:Id/deliveries': {
    path: (a) => `/notifications/endpoints/${a.notificationEndpoint}/deliveries`,
  },
  'GET /notifications/deliveries/:Id': { path: (a) => `/notifications/deliveries/${a.notificationDelivery}` },
  'POST /notifications/deliveries/:Id/redeliver': {
    path: (a) => `/notifications/deliveries/${a.notificationDelivery}/redeliver`,
  },
  'GET /notifications/rules/:Id': { path: (a) => `/notifications/rules/${a.notificationRule}` },
  'PATCH /notifications/rules/:Id': {
    path: (a) => `/notifications/rules/${a.notificationRule}`,
    body: () => ({ Name: 'taken over' }),
  },
  'DELETE /notifications/rules/:Id': { path: (a) => `/notifications/rules/${a.notificationRule}` },
  'GET /reports/:Id': { path: (a) => `/reports/${a.report}` },
  'GET /reports/:Id/download': { path: (a) => `/reports/${a.report}/download` },
  'DELETE /reports/:Id': { path: (a) => `/reports/${a.report}` },
  'GET /reportdefinitions/:Id': { path: (a) => `/reportdefinitions/${a.reportDefinition}` },
  'PUT /reportdefinitions/:Id': {
    path: (a) => `/reportdefinitions/${a.reportDefinition}`,
    body: () => ({ Name: 'taken over', Kind: 'Executive', Format: 'Csv' }),
  },
  'DELETE /reportdefinitions/:Id': { path: (a) => `/reportdefinitions/${a.reportDefinition}` },
  'POST /reportdefinitions/:Id/run': { path: (a) => `/reportdefinitions/${a.reportDefinition}/run` },
  'GET /webscans/:Id': { path: (a) => `/webscans/${a.webScan}` },
  'PUT /webscans/:Id': {
    path: (a) => `/webscans/${a.webScan}`,
    body: () => ({ Name: 'taken over', Urls: ['http://198.18.0.5/'] }),
  },
  'DELETE /webscans/:Id': { path: (a) => `/webscans/${a.webScan}` },
  'POST /webscans/:Id/start': { path: (a) => `/webscans/${a.webScan}/start` },
  'POST /webscans/:Id/stop': { path: (a) => `/webscans/${a.webScan}/stop` },
  'GET /webscans/:Id/runs/latest': { path: (a) => `/webscans/${a.webScan}/runs/latest` },
  'POST /webscans/:Id/reports/latest/vulnerabilitiesandfindings/withstartindex/:StartIndex/andpagesize/:PageSize':
    {
      path: (a) =>
        `/webscans/${a.webScan}/reports/latest/vulnerabilitiesandfindings/withstartindex/0/andpagesize/10`,
      body: () => ({}),
    },
  'GET /scangroups/:Id': { path: (a) => `/scangroups/${a.scanGroup}` },
  'PUT /scangroups/:Id': {
    path: (a) => `/scangroups/${a.scanGroup}`,
    body: () => ({ ScanGroupName: 'taken over' }),
  },
  'DELETE /scangroups/:Id': { path: (a) => `/scangroups/${a.scanGroup}` },
  'GET /scangroups/:Id/systemscans': { path: (a) => `/scangroups/${a.scanGroup}/systemscans` },
  'GET /scangroups/:Id/webscans': { path: (a) => `/scangroups/${a.scanGroup}/webscans` },
  'GET /ssoproviders/:Id': { path: (a) => `/ssoproviders/${a.ssoProvider}` },
  'PATCH /ssoproviders/:Id': {
    path: (a) => `/ssoproviders/${a.ssoProvider}`,
    body: () => ({ Enabled: true }),
  },
  'DELETE /ssoproviders/:Id': { path: (a) => `/ssoproviders/${a.ssoProvider}` },
};

// The anonymous steps of single sign-on: a browser follows a provider's id from the sign-in page,
// before anyone is known. They answer redirects, never an organisation's data; the user a sign-in
// finds or creates belongs to the provider's organisation (test/modules/sso, test/e2e/sso.test.ts).
const SIGN_IN_FLOW = new Set(['GET /auth/oidc/:ProviderId/start', 'GET /auth/oidc/:ProviderId/callback']);

// Routes with path parameters that name no resource (offset paging of the caller's own data).
const PAGING_ONLY = new Set([
  'POST /assets/withstartindex/:StartIndex/andpagesize/:PageSize',
  'POST /discoveryscans/withstartindex/:StartIndex/andpagesize/:PageSize',
  'POST /things/withStartIndex/:StartIndex/andPageSize/:PageSize',
]);

// The installation's own routes act across organisations by design (docs/organisations.md): only an
// installation Admin's web session reaches them. An organisation's Admin is refused whatever the id
// (401 with a key: they take no key; 403 in a session), and nothing changes.
const INSTALLATION_ONLY = new Set(['PATCH /installation/organizations/:Id']);

// Routes whose ids name public, installation-wide intelligence (a CVE, a feed load), which holds
// no organisation's data: every organisation reads the same. Checked below to leak none of A's.
const PUBLIC_DATA = new Set(['GET /intel/cves/:CveId', 'GET /intel/loads/:Id']);

// Calls on B's own resources, or creating new ones, whose body names one of A's.
const FOREIGN_REFERENCES: {
  name: string;
  method: Method;
  path: (b: Ids) => string;
  body: (a: Ids, b: Ids) => unknown;
}[] = [
  {
    name: 'a discovery scan with A’s template',
    method: 'POST',
    path: () => '/discoveryscans',
    body: (a) => ({ Name: 'x', ScanTargets: [{ Range: '198.18.0.0/28' }], TemplateId: a.scanTemplate }),
  },
  {
    name: 'a discovery scan on A’s scan node',
    method: 'POST',
    path: () => '/discoveryscans',
    body: (a) => ({ Name: 'x', ScanTargets: [{ Range: '198.18.0.0/28' }], ScanNodeId: a.scanNode }),
  },
  {
    name: 'a scan group following A’s discovery scan',
    method: 'POST',
    path: () => '/scangroups',
    body: (a) => ({
      ScanGroupName: 'x',
      AssetMonitoringConfigurations: [{ DiscoveryScanId: a.discoveryScan }],
    }),
  },
  {
    name: 'a scan group answered for by A’s user',
    method: 'POST',
    path: () => '/scangroups',
    body: (a) => ({ ScanGroupName: 'x', ResponsiblePersonId: a.user }),
  },
  {
    name: 'a web scan on A’s scan node',
    method: 'POST',
    path: () => '/webscans',
    body: (a) => ({ Name: 'x', Urls: ['http://198.18.0.5/'], ScanNodeId: a.scanNode }),
  },
  {
    name: 'a system scan with A’s template',
    method: 'POST',
    path: () => '/systemscans',
    body: (a) => ({ Name: 'x', ScanTargets: [{ Range: '198.18.0.0/28' }], TemplateId: a.scanTemplate }),
  },
  {
    name: 'a system scan on A’s scan node',
    method: 'POST',
    path: () => '/systemscans',
    body: (a) => ({ Name: 'x', ScanTargets: [{ Range: '198.18.0.0/28' }], ScanNodeId: a.scanNode }),
  },
  {
    name: 'a system scan of A’s asset',
    method: 'POST',
    path: () => '/systemscans',
    body: (a) => ({ Name: 'x', AssetId: a.asset }),
  },
  {
    name: 'a finding on A’s asset',
    method: 'POST',
    path: () => '/findings',
    body: (a) => ({ AssetId: a.asset, Vulnerability: { Title: 'x', Severity: 'Low' } }),
  },
  {
    name: 'a finding of A’s vulnerability',
    method: 'POST',
    path: () => '/findings',
    body: (a, b) => ({ AssetId: b.asset, VulnerabilityId: a.vulnerability }),
  },
  {
    name: 'a ticket for A’s finding',
    method: 'POST',
    path: () => '/tickets',
    body: (a) => ({ Title: 'x', FindingIds: [a.finding] }),
  },
  {
    name: 'a ticket assigned to A’s user',
    method: 'POST',
    path: () => '/tickets',
    body: (a) => ({ Title: 'x', AssigneeId: a.user }),
  },
  {
    name: 'linking A’s finding to B’s ticket',
    method: 'POST',
    path: (b) => `/tickets/${b.ticket}/findings/link`,
    body: (a) => ({ FindingIds: [a.finding] }),
  },
  {
    name: 'assigning B’s ticket to A’s user',
    method: 'PATCH',
    path: (b) => `/tickets/${b.ticket}`,
    body: (a) => ({ AssigneeId: a.user }),
  },
  {
    name: 'B’s asset owned by A’s user',
    method: 'PATCH',
    path: (b) => `/assets/${b.asset}`,
    body: (a) => ({ OwnerId: a.user }),
  },
  {
    name: 'B’s findings linked to A’s ticket in bulk',
    method: 'POST',
    path: () => '/findings/bulk/ticket',
    body: (a) => ({ Filter: {}, TicketId: a.ticket }),
  },
];

const A_MARK = 'alpha-secret';

describe.each(DB_KINDS)('every route keeps organisations apart [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let adminA: Credentials;
  let adminB: Credentials;
  let a: Ids;
  let b: Ids;
  /** A web session of an Admin of B (a person of B alone). */
  let browserB: Browser;
  let bravoId: string;

  const call = (who: Credentials, method: Method, url: string, body?: unknown, accept?: string) =>
    t.app.inject({
      method,
      url,
      headers: {
        ...authHeaders(who),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(accept ? { accept } : {}),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const ok = async (who: Credentials, method: Method, url: string, body?: unknown) => {
    const res = await call(who, method, `/api/latest${url}`, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };

  // An organisation with one of everything, named so that a leak is easy to spot.
  const populate = async (admin: Credentials, organizationId: string, mark: string): Promise<Ids> => {
    const asset = await ok(admin, 'POST', '/assets', {
      Kind: 'Host',
      Name: `${mark}-host`,
      Fqdn: `${mark}.example.com`,
      IpAddresses: ['10.77.0.1'],
    });
    const webApp = await ok(admin, 'POST', '/assets', {
      Kind: 'WebApplication',
      Url: `https://${mark}.example.com/`,
    });
    await ok(admin, 'POST', `/assets/${asset.Id}/services`, {
      Port: 22,
      Protocol: 'tcp',
      Product: `${mark}-sshd`,
    });
    const software = await ok(admin, 'POST', `/assets/${asset.Id}/software`, {
      Name: `${mark}-pkg`,
      Version: '1',
    });
    const finding = await ok(admin, 'POST', '/findings', {
      AssetId: asset.Id,
      Vulnerability: {
        Title: `${mark} vulnerability`,
        Severity: 'High',
        Cve: ['CVE-2024-6387'],
      },
      Location: { Kind: 'Port', Port: 22, Protocol: 'tcp' },
    });
    const detail = await ok(admin, 'GET', `/findings/${finding.Id}`);
    const ticket = await ok(admin, 'POST', '/tickets', { Title: `${mark} ticket`, FindingIds: [finding.Id] });
    await ok(admin, 'POST', `/tickets/${ticket.Id}/comments`, { Body: `${mark} comment` });
    const user = await ok(admin, 'POST', '/users', {
      Email: `${mark}@example.com`,
      Name: `${mark} user`,
      Role: 'Analyst',
    });
    const keys = await ok(admin, 'GET', '/apikeys');
    const report = `<?xml version="1.0" ?><NessusClientData_v2><Report name="${mark}"><ReportHost name="10.78.0.1">
<HostProperties><tag name="host-ip">10.78.0.1</tag><tag name="host-fqdn">${mark}-scanned.example.com</tag></HostProperties>
<ReportItem port="80" svc_name="www" protocol="tcp" severity="2" pluginID="777001" pluginName="${mark} imported">
<plugin_output>${mark}</plugin_output></ReportItem></ReportHost></Report></NessusClientData_v2>`;
    const submitted = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(admin), 'content-type': 'application/xml' },
      payload: report,
    });
    expect(submitted.statusCode).toBe(202);
    await t.services.imports.settled(submitted.json().Id);
    expect((await ok(admin, 'GET', `/imports/${submitted.json().Id}`)).State).toBe('Completed');
    // Nothing enqueues jobs through the API: the queue takes one directly.
    const job = await t.services.jobs.enqueueUnchecked(`${mark}-job`, { mark }, { organizationId });
    const enrolment = await ok(admin, 'POST', '/scannodes/enrolments', {});
    const enrolled = await ok(admin, 'POST', '/scannodes/enrol', {
      Token: enrolment.Token,
      Name: `${mark}-node`,
    });
    // Runs are queued by the scans that own them; A's is claimed by A's node.
    const scanRun = await t.services.scanRuns.queue(
      { organizationId, actor: { type: 'system', id: null } },
      {
        kind: 'Discovery',
        sourceId: randomUUID(),
        sourceName: `${mark}-scan`,
        nodeId: enrolled.NodeId,
        spec: { mark },
      },
    );
    await t.app.inject({
      method: 'POST',
      url: '/api/latest/scanruns/claim',
      headers: { authorization: `Bearer ${enrolled.NodeKey}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    const scanTemplate = await ok(admin, 'POST', '/scantemplates', {
      Name: `${mark} template`,
      Settings: TEMPLATE_SETTINGS,
    });
    await ok(admin, 'POST', '/allowedtargets', { Kind: 'Allowed', Target: '198.18.0.0/24' });
    const discoveryScan = await ok(admin, 'POST', '/discoveryscans', {
      Name: `${mark} scan`,
      ScanTargets: [{ Range: '198.18.0.0/28', Name: `${mark} range` }],
    });
    const systemScan = await ok(admin, 'POST', '/systemscans', {
      Name: `${mark} system scan`,
      ScanTargets: [{ Range: '198.18.0.0/28', Name: `${mark} range` }],
    });
    const allowedTarget = await ok(admin, 'POST', '/allowedtargets', {
      Kind: 'Allowed',
      Target: `*.${mark}.example.com`,
      Description: `${mark} lab`,
    });
    const webScan = await ok(admin, 'POST', '/webscans', {
      Name: `${mark} web scan`,
      Urls: [`http://198.18.0.5/${mark}`],
    });
    const scanGroup = await ok(admin, 'POST', '/scangroups', {
      ScanGroupName: `${mark} group`,
      ScanDescription: `${mark} servers`,
      AssetMonitoringConfigurations: [{ DiscoveryScanId: discoveryScan.Id, TrackSystemScans: 'true' }],
    });
    const notificationEndpoint = await ok(admin, 'POST', '/notifications/endpoints', {
      Name: `${mark} webhook`,
      Kind: 'Webhook',
      Url: `http://127.0.0.1:9/${mark}`,
    });
    const notificationRule = await ok(admin, 'POST', '/notifications/rules', {
      Name: `${mark} rule`,
      EventTypes: ['finding.created'],
      EndpointIds: [notificationEndpoint.Id],
    });
    // A delivery to a closed loopback port: it fails at once and waits for a retry the clock never reaches.
    const delivery = await ok(admin, 'POST', `/notifications/endpoints/${notificationEndpoint.Id}/test`);
    for (let i = 0; i < 400; i++) {
      if ((await ok(admin, 'GET', `/notifications/deliveries/${delivery.Id}`)).State === 'Failed') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // Disabled: nothing ever reaches its (example) issuer.
    const ssoProvider = await ok(admin, 'POST', '/ssoproviders', {
      Name: `${mark} SSO`,
      IssuerUrl: `https://login.${mark}.example.com/realms/${mark}`,
      ClientId: `${mark}-rampart`,
      ClientSecret: `${mark} client secret`,
      Enabled: false,
    });
    const estateReport = await ok(admin, 'POST', '/reports', {
      Name: `${mark} report`,
      Kind: 'Technical',
      Format: 'Csv',
    });
    const reportDefinition = await ok(admin, 'POST', '/reportdefinitions', {
      Name: `${mark} definition`,
      Kind: 'Executive',
      Format: 'Csv',
    });
    // Made by the background job: waited for, so that nothing changes during the sweep.
    for (let i = 0; i < 400; i++) {
      if (['Completed', 'Failed'].includes((await ok(admin, 'GET', `/reports/${estateReport.Id}`)).State))
        break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // The estate's own events dispatched and their deliveries tried before the sweep compares.
    for (let i = 0; i < 800; i++) {
      const log = await ok(admin, 'GET', `/notifications/endpoints/${notificationEndpoint.Id}/deliveries`);
      const settled = (log.Items as { State: string }[]).every(
        (d) => d.State !== 'Pending' && d.State !== 'Delivering',
      );
      if (settled && !(await t.services.events.hasPending())) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return {
      ssoProvider: ssoProvider.Id,
      report: estateReport.Id,
      reportDefinition: reportDefinition.Id,
      notificationEndpoint: notificationEndpoint.Id,
      notificationRule: notificationRule.Id,
      notificationDelivery: delivery.Id,
      webScan: webScan.Id,
      scanGroup: scanGroup.Id,
      asset: asset.Id,
      webApp: webApp.Id,
      software: software.Id,
      finding: finding.Id,
      vulnerability: finding.VulnerabilityId,
      pluginId: detail.PluginGuidId ?? finding.VulnerabilityId,
      ticket: ticket.Id,
      user: user.Id,
      apiKey: keys.Items[0].Id,
      import: submitted.json().Id,
      job,
      scanNode: enrolled.NodeId,
      nodeKey: enrolled.NodeKey,
      scanRun: scanRun.id,
      scanTemplate: scanTemplate.Id,
      discoveryScan: discoveryScan.Id,
      systemScan: systemScan.Id,
      allowedTarget: allowedTarget.Id,
    };
  };

  // What A can see of its own data; the sweep must leave it exactly so.
  const snapshot = async () => ({
    asset: await ok(adminA, 'GET', `/assets/${a.asset}`),
    webApp: await ok(adminA, 'GET', `/assets/${a.webApp}`),
    services: await ok(adminA, 'GET', `/assets/${a.asset}/services`),
    software: await ok(adminA, 'GET', `/assets/${a.asset}/software`),
    finding: await ok(adminA, 'GET', `/findings/${a.finding}`),
    ticket: await ok(adminA, 'GET', `/tickets/${a.ticket}`),
    users: await ok(adminA, 'GET', '/users'),
    keys: await ok(adminA, 'GET', '/apikeys'),
    settings: await ok(adminA, 'GET', '/settings'),
    imports: await ok(adminA, 'GET', '/imports'),
    scanNode: await ok(adminA, 'GET', `/scannodes/${a.scanNode}`),
    scanRun: await ok(adminA, 'GET', `/scanruns/${a.scanRun}`),
    scanTemplates: await ok(adminA, 'GET', '/scantemplates'),
    discoveryScan: await ok(adminA, 'GET', `/discoveryscans/${a.discoveryScan}`),
    systemScan: await ok(adminA, 'GET', `/systemscans/${a.systemScan}`),
    allowedTargets: await ok(adminA, 'GET', '/allowedtargets'),
    webScan: await ok(adminA, 'GET', `/webscans/${a.webScan}`),
    scanGroup: await ok(adminA, 'GET', `/scangroups/${a.scanGroup}`),
    notificationEndpoint: await ok(adminA, 'GET', `/notifications/endpoints/${a.notificationEndpoint}`),
    notificationRules: await ok(adminA, 'GET', '/notifications/rules'),
    report: await ok(adminA, 'GET', `/reports/${a.report}`),
    reportDefinitions: await ok(adminA, 'GET', '/reportdefinitions'),
    ssoProvider: await ok(adminA, 'GET', `/ssoproviders/${a.ssoProvider}`),
    notificationDelivery: await ok(adminA, 'GET', `/notifications/deliveries/${a.notificationDelivery}`),
  });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    // Notification endpoints of the estates point at a closed loopback port.
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_NOTIFY_ALLOW_LOOPBACK: 'true' },
    });
    adminA = t.admin;
    const bravo = await t.services.organizations.create('Bravo');
    adminB = await t.userWithKey('Admin', bravo);
    bravoId = bravo.id;
    await t.services.users.create(
      { organizationId: bravo.id, actor: { type: 'system', id: null } },
      { email: 'bravo-admin@example.com', role: 'Admin', password: SWEEP_PASSWORD },
    );
    browserB = await signInAs(t.app, 'bravo-admin@example.com', SWEEP_PASSWORD);
    a = await populate(adminA, t.org.id, A_MARK);
    b = await populate(adminB, bravo.id, 'bravo');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('answers 404 to every route aimed at the other organisation’s resources, and changes nothing', async () => {
    const before = await snapshot();
    const swept: string[] = [];
    const unswept: string[] = [];
    for (const r of t.routes) {
      if (!r.channel || r.method === 'HEAD' || !r.url.includes('/:')) continue;
      const key = `${r.method} ${r.url.replace(`/api/${r.channel}`, '')}`;
      if (PAGING_ONLY.has(key)) continue;
      if (SIGN_IN_FLOW.has(key)) {
        // A's provider is disabled: refused at once, nothing reaches its (example) issuer.
        const res = await t.app.inject({ method: 'GET', url: r.url.replace(':ProviderId', a.ssoProvider) });
        expect(res.statusCode, `${key}: ${res.body}`).toBe(302);
        expect(res.headers.location).toMatch(/\/sign-in\?sso_error=unknown-provider$/);
        // No session and no attempt: at most the attempt's cookie cleared.
        const cookies = [res.headers['set-cookie'] ?? []].flat().map(String);
        expect(cookies.filter((c) => !c.includes('Max-Age=0'))).toEqual([]);
        continue;
      }
      if (INSTALLATION_ONLY.has(key)) {
        const url = `/api/${r.channel}${r.url.replace(`/api/${r.channel}`, '').replace(':Id', t.org.id)}`;
        const body = { Name: 'Taken over', Active: false };
        const withKey = await call(adminB, r.method as Method, url, body);
        expect(withKey.statusCode, `${key} with a key: ${withKey.body}`).toBe(401);
        const inSession = await t.app.inject({
          method: r.method as Method,
          url,
          headers: { ...browserB.headers, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expect(inSession.statusCode, `${key} in a session: ${inSession.body}`).toBe(403);
        const orgA = await t.services.organizations.get(t.org.id);
        expect(orgA.active).toBe(true);
        expect(orgA.name).not.toBe('Taken over');
        swept.push(`${r.channel} ${key}`);
        continue;
      }
      if (PUBLIC_DATA.has(key)) {
        const path = key.endsWith(':CveId') ? '/intel/cves/CVE-2021-41773' : `/intel/loads/${randomUUID()}`;
        const res = await call(adminB, 'GET', `/api/${r.channel}${path}`);
        expect([200, 404], `${key}: ${res.body}`).toContain(res.statusCode);
        expect(res.body).not.toContain(A_MARK);
        continue;
      }
      const foreign = FOREIGN_CALLS[key];
      if (!foreign) {
        unswept.push(key);
        continue;
      }
      const url = `/api/${r.channel}${foreign.path(a)}`;
      const body = foreign.body?.(a, b);
      const res =
        r.access && 'scanNode' in r.access
          ? await t.app.inject({
              method: r.method as Method,
              url,
              headers: { authorization: `Bearer ${b.nodeKey}`, 'content-type': 'application/json' },
              payload: JSON.stringify(body ?? {}),
            })
          : await call(adminB, r.method as Method, url, body);
      expect(res.statusCode, `${r.method} ${url}: ${res.body}`).toBe(404);
      expect(res.body).not.toContain(A_MARK);
      swept.push(`${r.channel} ${key}`);
    }
    expect(unswept, 'routes that take an id but are not in FOREIGN_CALLS').toEqual([]);
    expect(swept.length).toBeGreaterThanOrEqual(40);
    expect(await snapshot()).toEqual(before);
  });

  it('lets a person with roles in both organisations see each only from a session in it, with its role', async () => {
    const email = 'both@example.com';
    const system = { type: 'system', id: null } as const;
    // Admin of B first (their sign-in starts there), Analyst of A.
    await t.services.users.create(
      { organizationId: bravoId, actor: system },
      { email, role: 'Admin', password: SWEEP_PASSWORD },
    );
    await t.services.users.create({ organizationId: t.org.id, actor: system }, { email, role: 'Analyst' });
    const before = await snapshot();
    const inB = await signInAs(t.app, email, SWEEP_PASSWORD, '127.0.9.7');
    const get = (browser: Browser, url: string) =>
      t.app.inject({ method: 'GET', url: `/api/latest${url}`, headers: browser.headers });
    const send = (browser: Browser, method: Method, url: string, body: unknown) =>
      t.app.inject({
        method,
        url: `/api/latest${url}`,
        headers: { ...browser.headers, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    expect((await get(inB, '/session')).json().Organization.Id).toBe(bravoId);
    // From B, A's resources do not exist, and no list shows them.
    for (const url of [`/assets/${a.asset}`, `/findings/${a.finding}`, `/tickets/${a.ticket}`])
      expect((await get(inB, url)).statusCode, url).toBe(404);
    for (const url of ['/assets', '/findings', '/tickets', '/users', '/auditlog']) {
      const res = await get(inB, url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain(A_MARK);
      expect(res.body, url).not.toContain(a.asset);
    }
    // Admin in B: it may change B's users; in A it is an Analyst, and may not.
    const switched = await send(inB, 'POST', '/session/organization', { OrganizationId: t.org.id });
    expect(switched.statusCode).toBe(200);
    const cookie = String(switched.headers['set-cookie']).split(';')[0]!;
    const inA: Browser = {
      cookie,
      csrf: switched.json().CsrfToken,
      headers: { cookie, 'x-csrf-token': switched.json().CsrfToken },
    };
    expect(switched.json().User.Role).toBe('Analyst');
    expect((await get(inA, `/assets/${a.asset}`)).statusCode).toBe(200);
    for (const url of [`/assets/${b.asset}`, `/findings/${b.finding}`, `/tickets/${b.ticket}`])
      expect((await get(inA, url)).statusCode, url).toBe(404);
    expect((await send(inA, 'PATCH', `/users/${a.user}`, { Role: 'ReadOnly' })).statusCode).toBe(403);
    expect(
      (await send(inA, 'POST', '/users', { Email: 'sneak@example.com', Role: 'Admin' })).statusCode,
    ).toBe(403);
    // The old session of B ended; B's CSRF token does not pass in A's session.
    expect((await get(inB, '/session')).statusCode).toBe(401);
    const crossCsrf = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session/organization',
      headers: { cookie: inA.cookie, 'x-csrf-token': inB.csrf, 'content-type': 'application/json' },
      payload: JSON.stringify({ OrganizationId: bravoId }),
    });
    expect(crossCsrf.statusCode).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it('answers 404 when a body names the other organisation’s resources, and changes nothing', async () => {
    const before = await snapshot();
    for (const c of FOREIGN_REFERENCES) {
      const res = await call(adminB, c.method, `/api/latest${c.path(b)}`, c.body(a, b));
      expect(res.statusCode, `${c.name}: ${res.body}`).toBe(404);
      expect(res.body).not.toContain(A_MARK);
    }
    const ticketB = await ok(adminB, 'GET', `/tickets/${b.ticket}`);
    expect(JSON.stringify(ticketB)).not.toContain(a.finding);
    expect(await snapshot()).toEqual(before);
  });

  it('lists, counts and exports only the caller’s own data, in both channels', async () => {
    const aIds = Object.values(a);
    let lists = 0;
    for (const r of t.routes) {
      if (!r.channel || r.method !== 'GET' || r.url.includes('/:') || (r.access && 'public' in r.access))
        continue;
      if (r.access && 'via' in r.access && !r.access.via?.includes('apiKey')) continue;
      for (const accept of ['application/json', 'text/csv']) {
        const res = await call(adminB, 'GET', r.url, undefined, accept);
        expect(res.statusCode, `${r.url} (${accept})`).toBe(200);
        expect(res.body, `${r.url} (${accept})`).not.toContain(A_MARK);
        for (const id of aIds) expect(res.body, `${r.url} (${accept}) names ${id}`).not.toContain(id);
      }
      lists += 1;
    }
    expect(lists).toBeGreaterThanOrEqual(16);

    // Filters that name A's resources match nothing of B's and reveal nothing of A's.
    for (const query of [`AssetId=${a.asset}`, `VulnerabilityId=${a.vulnerability}`, 'Search=alpha-secret']) {
      const page = await ok(adminB, 'GET', `/findings?${query}&IncludeTotal=true`);
      expect(page.Items, query).toEqual([]);
      expect(page.TotalCount, query).toBe(0);
    }
    const counted = await ok(adminB, 'GET', '/findings?IncludeTotal=true');
    expect(counted.TotalCount).toBe(2);
    const radarAssets = (
      await call(adminB, 'POST', '/api/integration/assets/withstartindex/0/andpagesize/100', {})
    ).json();
    expect(radarAssets.TotalCount).toBe(2); // B's hosts; its web application has no address
    expect(JSON.stringify(radarAssets)).not.toContain(A_MARK);
    const things = (
      await call(adminB, 'POST', '/api/integration/things/withStartIndex/0/andPageSize/100', {})
    ).json();
    expect(things.TotalCount).toBe(2); // B's hosts, as the original's endpoint list
    expect(JSON.stringify(things)).not.toContain(A_MARK);

    // Bulk actions over "everything" touch only B's own findings and assets.
    const bulk = await ok(adminB, 'POST', '/findings/bulk/state', {
      Filter: {},
      State: 'FalsePositive',
      Justification: 'sweep',
    });
    expect(bulk).toMatchObject({ Matched: 2, Changed: 2 });
    const tagged = await ok(adminB, 'POST', '/assets/bulk/tags', { Filter: {}, Add: ['swept'] });
    expect(tagged.Changed).toBe(3);
    expect((await ok(adminA, 'GET', `/findings/${a.finding}`)).State).toBe('Open');
    expect((await ok(adminA, 'GET', `/assets/${a.asset}`)).Tags).not.toContain('swept');
  });
});
