import { isIP } from 'node:net';
import type { Static } from 'typebox';
import { BOTH } from '../../http/channels.js';
import type { JobKind } from '../../jobs/catalogue.js';
import { invalid } from '../../problems/app-error.js';
import type { DiscoveredHost, DiscoverySpec } from '../../scanning/types.js';
import type { AssetInput, AssetService } from '../assets/service.js';
import type { EventsService } from '../events/service.js';
import {
  assertNodeServes,
  checkTemplate,
  keptSchedule,
  targetsRefusal,
  trimList,
  trimTargets,
} from '../savedscans/checks.js';
import type { KindDependencies } from '../savedscans/dependencies.js';
import { type ScanKindDefinition, type ScanTable, targetColumns, targetsOfRow } from '../savedscans/kind.js';
import { savedScanDtoFields, toTargetsDto } from '../savedscans/presenters.js';
import { systemContext } from '../savedscans/service.js';
import type { ScanNotification } from '../savedscans/types.js';
import { DEFAULT_DISCOVERY_TEMPLATE_ID } from '../scantemplates/built-in.js';
import type { ScanTemplateService } from '../scantemplates/service.js';
import type { DiscoveryReportRepository } from './repository.js';
import { DiscoveryScanBody, DiscoveryScanSchema } from './schemas.js';
import type { DiscoveryScan, DiscoveryScanInput, DiscoveryScanWrite } from './types.js';

/** The job a scan's schedule enqueues at each occurrence. */
export const SCHEDULED_DISCOVERY_JOB = 'discovery-scan.start' satisfies JobKind;

/**
 * The job that tells the followers of the reports, enqueued in the run's transaction: they change
 * other modules' scans, which they cannot do inside that transaction.
 */
export const DISCOVERY_REPORTED_JOB = 'discovery-scan.reported' satisfies JobKind;

/** What discovery scans ask of other modules beside what every saved scan does. */
export interface DiscoveryKindDependencies extends KindDependencies {
  templates: Pick<ScanTemplateService, 'find' | 'getOf'>;
  assets: Pick<AssetService, 'prepare' | 'observeMany'>;
  /** Whether anyone follows the reports: the job that tells them is enqueued only then. */
  reportsFollowed: () => boolean;
  reports: DiscoveryReportRepository;
  events: Pick<EventsService, 'publish'>;
}

const TARGET_RULES =
  'Every target must lie inside the organisation’s allowed scan targets (Settings), be at most a /16, and avoid the always-refused addresses (multicast, broadcast, link-local including 169.254.169.254, reserved, unspecified; loopback unless the server allows it): otherwise 422 `scan-target-refused` naming the target and the rule.';

/** The kind's table: its own columns beside those every saved scan has. */
export const discoveryScanTable: ScanTable<DiscoveryScan, DiscoveryScanWrite> = {
  name: 'discovery_scans',
  columns: ['targets', 'exclusions', 'notifications', 'responsible_user_id'],
  fromRow: (r) => ({
    ...targetsOfRow(r),
    notifications: r.notifications as ScanNotification[],
    responsibleUserId: r.responsible_user_id as string | null,
  }),
  toColumns: (w) => ({
    ...targetColumns(w),
    notifications: JSON.stringify(w.notifications),
    responsible_user_id: w.responsibleUserId,
  }),
  results: {
    name: 'discovery_run_hosts',
    key: 'address',
    replaced: ['hostname', 'mac_address', 'os_guess', 'open_ports', 'closed_ports'],
  },
  runTables: ['discovery_run_hosts', 'discovery_hosts'],
};

/** Our body as the service takes it. */
export function inputOf(b: Static<typeof DiscoveryScanBody>): DiscoveryScanInput {
  return {
    name: b.Name,
    targets: b.ScanTargets.map((t) => ({ range: t.Range, name: t.Name ?? null, exclude: t.Exclude ?? [] })),
    exclusions: b.Exclusions ?? [],
    templateId: b.TemplateId ?? DEFAULT_DISCOVERY_TEMPLATE_ID,
    nodeId: b.ScanNodeId ?? null,
    notifications: (b.Notifications ?? []).map((n) => ({
      emailAddresses: n.EmailAddresses,
      level: n.NotificationLevel,
    })),
    responsibleUserId: b.ResponsibleUserId ?? null,
    schedule: b.Schedule ?? null,
  };
}

/**
 * Discovery scans: saved ranges with a template and a node; each run's hosts come back in batches
 * and, when it completes, become the run's report (new and gone since the previous completed run)
 * and assets, merged by identity exactly as imports merge them.
 */
export function discoveryScanKind(
  deps: DiscoveryKindDependencies,
): ScanKindDefinition<
  DiscoveryScan,
  DiscoveryScanInput,
  DiscoveryScanWrite,
  typeof DiscoveryScanBody,
  never,
  'Discovery'
> {
  const { templates, targets, reports } = deps;
  return {
    kind: 'Discovery',
    noun: 'discovery scan',
    auditType: 'discovery-scan',
    scheduledJob: SCHEDULED_DISCOVERY_JOB,
    table: discoveryScanTable,
    http: {
      base: '/discoveryscans',
      tags: ['Discovery scans'],
      channels: BOTH,
      operationName: 'DiscoveryScan',
      startPath: 'runs',
      schemas: {
        body: DiscoveryScanBody,
        scan: DiscoveryScanSchema,
      },
      texts: {
        targetRules: TARGET_RULES,
        nodesServing: 'discovery',
        create: [
          'Saves the scan; it runs when started (`POST /discoveryscans/{Id}/runs`). The template defaults to "Host Discovery [T1]".',
          TARGET_RULES,
          'The integration channel answers this path as the original service does (its body, the new id as the answer).',
        ].join('\n\n'),
        get: 'One discovery scan with its latest run and its progress',
        delete: {
          summary: 'Delete a discovery scan and its reports',
          description: 'A scan with a run under way answers 409: stop it first. The assets it found stay.',
        },
        stop: 'A queued run stops at once; a running one becomes Stopping and its node ends it within seconds (Stopped). No run under way: 409.',
      },
      inputOf,
      toDto: (s, view) => ({
        ...savedScanDtoFields(s, view),
        ScanTargets: toTargetsDto(s.targets),
        Exclusions: s.exclusions,
        Notifications: s.notifications.map((n) => ({
          EmailAddresses: n.emailAddresses,
          NotificationLevel: n.level,
        })),
        ResponsibleUserId: s.responsibleUserId,
        ScheduleId: view.scheduleId,
      }),
    },

    async check(ctx, input) {
      if (input.name.trim().length === 0) throw invalid('name', 'A scan needs a name.');
      deps.schedules.check(input.schedule);
      if (input.targets.length === 0) throw invalid('scanTargets', 'A scan needs at least one target.');
      await checkTemplate(templates, ctx, input.templateId, 'Discovery');
      await assertNodeServes(deps.nodes, ctx, input.nodeId, 'Discovery');
      await targets.assertAllowed(ctx, input.targets, input.exclusions);
      return {
        name: input.name.trim(),
        targets: trimTargets(input.targets),
        exclusions: trimList(input.exclusions),
        templateId: input.templateId,
        nodeId: input.nodeId,
        schedule: keptSchedule(input.schedule),
        notifications: input.notifications,
        responsibleUserId: input.responsibleUserId,
      };
    },

    async order(ctx, scan) {
      await targets.assertAllowed(ctx, scan.targets, scan.exclusions);
      const template = await templates.getOf(ctx, scan.templateId, 'Discovery');
      const spec: DiscoverySpec = {
        targets: scan.targets,
        exclusions: scan.exclusions,
        template: template.settings,
        policy: await targets.policy(ctx.organizationId),
      };
      return { spec };
    },

    acceptBatch(run, items) {
      // Hosts outside what the run allowed are left out.
      const spec = run.spec as Partial<DiscoverySpec> | undefined;
      return items
        .filter((h) => !spec?.policy || targets.refusal([{ range: h.address }], [], spec.policy) === null)
        .map((h) => ({
          key: h.address,
          columns: {
            hostname: h.hostname,
            mac_address: h.macAddress,
            os_guess: h.osGuess,
            open_ports: h.openPorts,
            closed_ports: h.closedPorts,
            // New or Seen once the run completes; a host reported again keeps its status.
            status: 'Found',
          },
        }));
    },

    /** A completed run becomes the report and the assets; the followers of the reports are told. */
    async runEnded(run, scan, at, trx) {
      if (run.state !== 'Completed') return;
      const org = run.organizationId;
      const hosts = await reports.runHosts(org, run.id, trx);
      const observed = hosts.flatMap((h) => {
        try {
          const host: DiscoveredHost = {
            address: h.address,
            hostname: h.hostname,
            macAddress: h.mac_address,
            osGuess: h.os_guess,
            openPorts: h.open_ports,
            closedPorts: h.closed_ports,
          };
          return [{ address: h.address, prepared: deps.assets.prepare(hostAsset(host, at)) }];
        } catch {
          // A host name or MAC an asset cannot carry: the host stays in the report, without an asset.
          return [];
        }
      });
      const { ids } = await deps.assets.observeMany(
        systemContext(org),
        observed.map((o) => o.prepared),
        trx,
      );
      await reports.setAssetIds(
        org,
        run.id,
        observed.map((o, i) => ({ address: o.address, assetId: ids[i]! })),
        trx,
      );
      await reports.completeReport(org, scan.id, run.id, scan.lastCompletedRunId, trx);
      const fresh = await reports.newHosts(org, run.id, 100, trx);
      if (fresh.count > 0)
        await deps.events.publish(
          trx,
          org,
          'scan.new_hosts_found',
          {
            Scan: { Kind: 'Discovery', Id: scan.id, Name: scan.name, ScanGroupId: null },
            Run: { Id: run.id, Attempt: run.attempt, State: run.state },
            Count: fresh.count,
            Hosts: fresh.hosts.map((h) => ({ Address: h.address, Hostname: h.hostname })),
          },
          { subject: `scanruns/${run.id}` },
        );
      if (deps.reportsFollowed())
        await deps.jobs.enqueue(
          DISCOVERY_REPORTED_JOB,
          { scanId: scan.id, runId: run.id },
          { organizationId: org, dedupKey: `discovery-reported:${run.id}`, maxAttempts: 3 },
          trx,
        );
    },

    refusalAtStart: (run, spec) => targetsRefusal(targets, run.organizationId, spec),
  };
}

/** The asset a discovered host becomes, by the identifiers imports use (address, MAC, name). */
export function hostAsset(h: DiscoveredHost, seenAt: Date): AssetInput {
  const name = h.hostname?.replace(/\.$/, '') ?? undefined;
  return {
    kind: 'Host',
    ipAddresses: [h.address],
    macAddresses: h.macAddress ? [h.macAddress] : [],
    ...(name?.includes('.') ? { fqdn: name, hostname: name.split('.')[0] } : name ? { hostname: name } : {}),
    ...(h.osGuess ? { operatingSystem: h.osGuess } : {}),
    source: 'Rampart discovery',
    seenAt,
  };
}
