import { describe, expect, it } from 'vitest';
import { discoveryScanKind } from '../../../src/modules/discoveryscans/definition.js';
import type { DiscoveryReportRepository } from '../../../src/modules/discoveryscans/repository.js';
import { keptSchedule, trimTargets } from '../../../src/modules/savedscans/checks.js';
import type {
  ScanJobs,
  ScanNodes,
  ScanSchedules,
  TargetRules,
} from '../../../src/modules/savedscans/dependencies.js';
import { scanSchedules } from '../../../src/modules/savedscans/schedules.js';
import type { SavedScanRun } from '../../../src/modules/savedscans/types.js';
import type { ScanTemplateService } from '../../../src/modules/scantemplates/service.js';
import { systemScanKind } from '../../../src/modules/systemscans/definition.js';
import type { SystemRunRepository } from '../../../src/modules/systemscans/repository.js';
import { webScanKind } from '../../../src/modules/webscans/definition.js';
import type { WebRunRepository } from '../../../src/modules/webscans/repository.js';
import type { TargetPolicy } from '../../../src/scanning/types.js';

// The three kinds of saved scan, described by their definitions: what the generic service, routes
// and repository read of each, and how each keeps a node's batch. No database: what the
// definitions answer without one.

const unused = <T>(): T =>
  new Proxy(
    {},
    {
      get: (_, name) => {
        throw new Error(`not used here: ${String(name)}`);
      },
    },
  ) as T;

/** Refuses 203.0.113.0/24 (a policy's refusal as a sentence), allows everything else. */
const targets: TargetRules = {
  policy: async () => ({ allowed: [], excluded: [] }) as unknown as TargetPolicy,
  assertAllowed: async () => {},
  refusal: (list) =>
    list.some((t) => t.range.startsWith('203.0.113.')) ? `${list[0]!.range}: refused` : null,
};

const common = {
  targets,
  nodes: unused<ScanNodes>(),
  jobs: unused<ScanJobs>(),
  schedules: unused<ScanSchedules>(),
};
const discovery = discoveryScanKind({
  ...common,
  templates: unused<ScanTemplateService>(),
  assets: unused(),
  reportsFollowed: () => false,
  reports: unused<DiscoveryReportRepository>(),
  events: unused(),
});
const system = systemScanKind({
  ...common,
  templates: unused<ScanTemplateService>(),
  assets: unused(),
  records: unused<SystemRunRepository>(),
});
const web = webScanKind({
  ...common,
  templates: unused(),
  clock: () => new Date(0),
  records: unused<WebRunRepository>(),
});

const run = (spec: unknown): SavedScanRun => ({
  id: 'run',
  organizationId: 'org',
  sourceId: 'scan',
  state: 'Running',
  attempt: 1,
  progress: { done: 0, total: 0, found: 0 },
  nodeId: null,
  claimedBy: null,
  spec,
  startedAt: null,
  finishedAt: null,
  error: null,
  createdAt: new Date(0),
});
const policy = { allowed: [], excluded: [] };

describe('saved-scan kinds', () => {
  it('each kind is served where its clients call it, with its own names, table and jobs', () => {
    const described = [discovery, system, web].map((k) => ({
      kind: k.kind,
      base: k.http.base,
      start: `POST ${k.http.base}/:Id/${k.http.startPath}`,
      operations: k.http.operationName,
      channels: k.http.channels ?? ['latest'],
      audit: k.auditType,
      job: k.scheduledJob,
      table: k.table.name,
      results: k.table.results.name,
    }));
    expect(described).toEqual([
      {
        kind: 'Discovery',
        base: '/discoveryscans',
        start: 'POST /discoveryscans/:Id/runs',
        operations: 'DiscoveryScan',
        channels: ['latest', 'integration'],
        audit: 'discovery-scan',
        job: 'discovery-scan.start',
        table: 'discovery_scans',
        results: 'discovery_run_hosts',
      },
      {
        kind: 'System',
        base: '/systemscans',
        start: 'POST /systemscans/:Id/start',
        operations: 'SystemScan',
        channels: ['latest'],
        audit: 'system-scan',
        job: 'system-scan.start',
        table: 'system_scans',
        results: 'system_run_hosts',
      },
      {
        kind: 'Web',
        base: '/webscans',
        start: 'POST /webscans/:Id/start',
        operations: 'WebScan',
        channels: ['latest'],
        audit: 'web-scan',
        job: 'web-scan.start',
        table: 'web_scans',
        results: 'web_run_urls',
      },
    ]);
    // A scan's results go with it.
    for (const k of [discovery, system, web]) expect(k.table.runTables).toContain(k.table.results.name);
    // Only the kinds that keep a run's report per run answer their latest run.
    expect([discovery, system, web].map((k) => k.http.latestRun?.operationId ?? null)).toEqual([
      null,
      'getLatestSystemScanRun',
      'getLatestWebScanRun',
    ]);
  });

  it('keeps a discovery batch’s hosts by address, dropping those outside the run’s policy (malformed ones never get here: test/modules/scanruns/batch-contract.test.ts)', () => {
    const host = (address: string, hostname: string | null = null) => ({
      address,
      hostname,
      macAddress: null,
      osGuess: null,
      openPorts: [22],
      closedPorts: [],
    });
    const rows = discovery.acceptBatch(run({ policy }), [
      host('198.51.100.7', 'a.test'),
      host('203.0.113.9'),
    ]);
    expect(rows).toEqual([
      {
        key: '198.51.100.7',
        columns: {
          hostname: 'a.test',
          mac_address: null,
          os_guess: null,
          open_ports: [22],
          closed_ports: [],
          status: 'Found',
        },
      },
    ]);
    // A run whose spec names no policy (an older run) keeps every well-formed host.
    expect(discovery.acceptBatch(run(undefined), [host('203.0.113.9')]).map((r) => r.key)).toEqual([
      '203.0.113.9',
    ]);
  });

  it('keeps a system batch’s hosts as they were reported, by address', () => {
    const host = {
      address: '198.51.100.7',
      hostname: null,
      openPorts: [443],
      closedPorts: null,
      filtered: 0,
      unscannedPorts: [],
      services: [],
      checks: [],
      budgetExhausted: null,
      answered: true,
    };
    const rows = system.acceptBatch(run({ policy, exclusions: [] }), [
      host,
      { ...host, address: '203.0.113.1' },
    ]);
    expect(rows.map((r) => r.key)).toEqual(['198.51.100.7']);
    expect(JSON.parse(rows[0]!.columns.result as string)).toEqual(host);
  });

  it('keeps a web batch’s results by URL, only for the origins its run asked', () => {
    const result = (url: string) => ({
      url,
      finalUrl: null,
      status: 200,
      address: null,
      software: [],
      checks: [],
      headerScore: null,
      notes: [],
      error: null,
      budgetExhausted: null,
    });
    const spec = { urls: ['https://site.test/', 'https://203.0.113.5/'], policy };
    const rows = web.acceptBatch(run(spec), [
      result('https://site.test/login'),
      result('https://other.test/'),
      result('https://203.0.113.5/'),
    ]);
    expect(rows.map((r) => r.key)).toEqual(['https://site.test/login']);
    expect(JSON.parse(rows[0]!.columns.result as string)).toEqual(result('https://site.test/login'));
  });

  it('checks a claimed run’s targets again under today’s policy', async () => {
    const spec = { targets: [{ range: '203.0.113.0/28' }], exclusions: [] };
    expect(await discovery.refusalAtStart(run(spec), spec)).toBe('203.0.113.0/28: refused');
    expect(await system.refusalAtStart(run(spec), spec)).toBe('203.0.113.0/28: refused');
    expect(await discovery.refusalAtStart(run(spec), { urls: [] })).toBeNull();
    expect(await web.refusalAtStart(run(null), { urls: ['https://203.0.113.5/x'] })).toBe(
      'https://203.0.113.5/x: 203.0.113.5: refused',
    );
    expect(await web.refusalAtStart(run(null), { urls: ['https://site.test/'] })).toBeNull();
  });
});

describe('saved-scan plumbing', () => {
  it('tidies targets and keeps no schedule for None', () => {
    expect(trimTargets([{ range: ' 10.0.0.0/24 ', name: ' ', exclude: [' 10.0.0.1 ', ''] }])).toEqual([
      { range: '10.0.0.0/24', name: null, exclude: ['10.0.0.1'] },
    ]);
    expect(keptSchedule({ SchedulingMode: 'None' })).toBeNull();
    expect(keptSchedule(null)).toBeNull();
  });

  it('keeps a scan’s schedule under its kind’s key, enqueuing its kind’s job with the scan’s id', async () => {
    const calls: unknown[] = [];
    const next = new Date('2030-01-01T02:00:00Z');
    const schedules = scanSchedules(
      {
        upsert: async (input) => {
          calls.push(['upsert', input.key, input.jobKind, input.payload, input.maxAttempts]);
          return { nextRunAt: next };
        },
        remove: async (org, key) => {
          calls.push(['remove', org, key]);
          return true;
        },
        get: async (_org, key) => (key === 'web-scan:s1' ? { id: 'sched', nextRunAt: next } : undefined),
      },
      'web-scan',
      'web-scan.start',
    );
    const daily = { SchedulingMode: 'Daily' as const, StartTime: '2026-01-01T02:00:00Z', TimeZone: 'UTC' };
    expect(await schedules.apply('org', 's1', daily)).toEqual(next);
    expect(await schedules.apply('org', 's1', { SchedulingMode: 'None' })).toBeNull();
    expect(await schedules.apply('org', 's1', null)).toBeNull();
    expect(calls).toEqual([
      ['upsert', 'web-scan:s1', 'web-scan.start', { scanId: 's1' }, 1],
      ['remove', 'org', 'web-scan:s1'],
      ['remove', 'org', 'web-scan:s1'],
    ]);
    expect(await schedules.nextRunAt('org', 's1')).toEqual(next);
    expect(await schedules.scheduleId('org', 's1')).toBe('sched');
    expect(await schedules.scheduleId('org', 's2')).toBeNull();
  });
});
