import { isIP } from 'node:net';
import type { Static } from 'typebox';
import type { JobKind } from '../../jobs/catalogue.js';
import { invalid } from '../../problems/app-error.js';
import { checkById } from '../../scanning/checks/index.js';
import type {
  CheckResult,
  ScannedService,
  ScanTarget,
  SystemHostResult,
  SystemSpec,
} from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import {
  assertNodeServes,
  keptSchedule,
  targetsRefusal,
  trimList,
  trimTargets,
} from '../savedscans/checks.js';
import type { KindDependencies } from '../savedscans/dependencies.js';
import { type ScanKindDefinition, type ScanTable, targetColumns, targetsOfRow } from '../savedscans/kind.js';
import { savedScanDtoFields, toTargetsDto } from '../savedscans/presenters.js';
import { GroupedScanListQuery } from '../savedscans/schemas.js';
import { DEFAULT_SYSTEM_TEMPLATE_ID } from '../scantemplates/built-in.js';
import type { ScanTemplateService } from '../scantemplates/service.js';
import type { SystemRunRepository } from './repository.js';
import { SystemRunReportSchema, SystemScanBody, SystemScanSchema } from './schemas.js';
import type { SystemScan, SystemScanInput, SystemScanWrite } from './types.js';

export const SCHEDULED_SYSTEM_JOB = 'system-scan.start' satisfies JobKind;
/** Turns a finished run's hosts into services and findings (src/background.ts runs it). */
export const SYSTEM_INGEST_JOB = 'system-scan.ingest' satisfies JobKind;

/** The assets module: a host asset's addresses, for a scan that names an asset. */
export interface SystemAssets {
  get(ctx: ServiceContext, id: string): Promise<{ name: string; ipAddresses: string[] }>;
}

/** What system scans ask of other modules beside what every saved scan does. */
export interface SystemKindDependencies extends KindDependencies {
  templates: Pick<ScanTemplateService, 'getOf'>;
  assets: SystemAssets;
  records: SystemRunRepository;
}

/** A Verify run's narrowing: only these targets and ports, and only these findings may become Fixed. */
export interface SystemVerify {
  targets: ScanTarget[];
  ports: number[];
  findingIds: string[];
}

const TARGET_RULES =
  'Every target (or the asset’s addresses) must lie inside the organisation’s allowed scan targets: otherwise 422 `scan-target-refused` naming the target and the rule. Checked again at every start.';

/** The kind's table: its own columns beside those every saved scan has. */
export const systemScanTable: ScanTable<SystemScan, SystemScanWrite> = {
  name: 'system_scans',
  columns: ['targets', 'exclusions', 'scan_group_id'],
  fromRow: (r) => ({ ...targetsOfRow(r), scanGroupId: r.scan_group_id as string | null }),
  toColumns: (w) => ({ ...targetColumns(w), scan_group_id: w.scanGroupId }),
  results: { name: 'system_run_hosts', key: 'address', replaced: ['result'] },
  runTables: ['system_run_hosts', 'system_scan_runs'],
};

/** Our body as the service takes it. */
export function systemScanInputOf(b: Static<typeof SystemScanBody>): SystemScanInput {
  return {
    name: b.Name,
    targets: (b.ScanTargets ?? []).map((t) => ({
      range: t.Range,
      name: t.Name ?? null,
      exclude: t.Exclude ?? [],
    })),
    assetId: b.AssetId ?? null,
    exclusions: b.Exclusions ?? [],
    templateId: b.TemplateId ?? DEFAULT_SYSTEM_TEMPLATE_ID,
    nodeId: b.ScanNodeId ?? null,
    schedule: b.Schedule ?? null,
    scanGroupId: b.ScanGroupId ?? null,
  };
}

/**
 * System scans: saved targets with a System template and a node; each run's hosts come back in
 * batches (kept per run, by address) and, when it ends, are turned into services and findings by
 * a durable job through the scan results module. A Verify run scans only some addresses and
 * ports, and may fix only the findings it was asked about.
 */
export function systemScanKind(
  deps: SystemKindDependencies,
): ScanKindDefinition<
  SystemScan,
  SystemScanInput,
  SystemScanWrite,
  typeof SystemScanBody,
  SystemVerify,
  'System'
> {
  const { targets, records } = deps;
  return {
    kind: 'System',
    noun: 'system scan',
    auditType: 'system-scan',
    scheduledJob: SCHEDULED_SYSTEM_JOB,
    table: systemScanTable,
    http: {
      base: '/systemscans',
      tags: ['System scans'],
      operationName: 'SystemScan',
      startPath: 'start',
      schemas: {
        body: SystemScanBody,
        scan: SystemScanSchema,
        listQuery: GroupedScanListQuery,
      },
      texts: {
        targetRules: TARGET_RULES,
        nodesServing: 'system scans',
        create: [
          'Saves the scan; it runs when started (`POST /systemscans/{Id}/start`) or by its schedule. Give `ScanTargets` or a host asset’s `AssetId`. The template defaults to "System scan, well-known ports [S1]".',
          TARGET_RULES,
        ].join('\n\n'),
        delete: {
          summary: 'Delete a system scan and its runs’ results',
          description:
            'A scan with a run under way answers 409: stop it first. Its findings and assets stay.',
        },
        stop: 'The hosts it finished are kept and become findings; no run under way: 409.',
      },
      latestRun: {
        operationId: 'getLatestSystemScanRun',
        summary: 'The latest run: its hosts, services, checks, budgets, backport decisions and import counts',
        description:
          '`Backports` lists the upstream CVE matches the distribution’s records decided: Fixed ones made no finding. `Import` is null until the run’s findings are stored (a moment after it ends). A scan that never ran answers 404.',
        schema: SystemRunReportSchema,
      },
      inputOf: systemScanInputOf,
      toDto: (s, view) => ({
        ...savedScanDtoFields(s, view),
        ScanTargets: toTargetsDto(s.targets),
        Exclusions: s.exclusions,
        ScanGroupId: s.scanGroupId,
      }),
    },

    async check(ctx, input) {
      const name = input.name.trim();
      if (name.length === 0) throw invalid('name', 'A scan needs a name.');
      deps.schedules.check(input.schedule);
      let scanTargets = trimTargets(input.targets);
      if (input.assetId) {
        if (scanTargets.length > 0) throw invalid('assetId', 'Give ScanTargets or AssetId, not both.');
        const asset = await deps.assets.get(ctx, input.assetId);
        if (asset.ipAddresses.length === 0)
          throw invalid('assetId', `The asset '${asset.name}' has no IP address to scan.`);
        scanTargets = asset.ipAddresses.map((range) => ({ range, name: asset.name, exclude: [] }));
      }
      if (scanTargets.length === 0)
        throw invalid('scanTargets', 'A scan needs at least one target (or an AssetId).');
      await deps.templates.getOf(ctx, input.templateId, 'System');
      await assertNodeServes(deps.nodes, ctx, input.nodeId, 'System');
      const exclusions = trimList(input.exclusions);
      await targets.assertAllowed(ctx, scanTargets, exclusions);
      return {
        name,
        targets: scanTargets,
        exclusions,
        templateId: input.templateId,
        nodeId: input.nodeId,
        schedule: keptSchedule(input.schedule),
        scanGroupId: input.scanGroupId,
      };
    },

    async order(ctx, scan, verify) {
      const runTargets = verify?.targets ?? scan.targets;
      await targets.assertAllowed(ctx, runTargets, scan.exclusions);
      const template = await deps.templates.getOf(ctx, scan.templateId, 'System');
      const portsOverride = verify ? verify.ports.join(',') : null;
      const spec: SystemSpec = {
        targets: runTargets,
        exclusions: scan.exclusions,
        template: template.settings,
        portsOverride,
        policy: await targets.policy(ctx.organizationId),
      };
      const verifyFindingIds = verify?.findingIds ?? null;
      return {
        spec,
        ...(verify
          ? {
              sourceName: `${scan.name} (Verify)`,
              audit: { action: 'verify-started', details: { findings: verify.findingIds.length } },
            }
          : {}),
        record: (trx, runId) =>
          records.insertRun(
            ctx.organizationId,
            { runId, scanId: scan.id, verifyFindingIds, ports: portsOverride ?? template.settings.ports },
            trx,
          ),
      };
    },

    acceptBatch(run, items) {
      // Hosts outside what the run allowed are left out.
      const spec = run.spec as Partial<SystemSpec> | undefined;
      return items
        .filter(
          (h) =>
            !spec?.policy ||
            targets.refusal([{ range: h.address }], spec.exclusions ?? [], spec.policy) === null,
        )
        .map((h) => ({ key: h.address, columns: { result: JSON.stringify(h) } }));
    },

    /** A Completed or Stopped run's hosts are ingested by a durable job (same transaction). */
    async runEnded(run, _scan, _at, trx) {
      if (run.state !== 'Completed' && run.state !== 'Stopped') return;
      await deps.jobs.enqueue(
        SYSTEM_INGEST_JOB,
        { runId: run.id },
        { organizationId: run.organizationId, dedupKey: `${SYSTEM_INGEST_JOB}:${run.id}`, maxAttempts: 3 },
        trx,
      );
    },

    refusalAtStart: (run, spec) => targetsRefusal(targets, run.organizationId, spec),
  };
}
