import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { DB, FindingState, LocationKind, Severity } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { decodeCursor, keysetPage } from '../../lib/cursor.js';
import type { Listeners } from '../../lib/listeners.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AssetService, RiskContextChanged } from '../assets/service.js';
import { type AuditService, recordedFilter } from '../audit/service.js';
import { newHistoryEntry, type ServiceContext, SYSTEM } from '../context.js';
import type { EventsService } from '../events/service.js';
import { roleAllows } from '../principal.js';
import type { SettingsService } from '../settings/service.js';
import type { Page } from '../users/service.js';
import type { VulnerabilityInput, VulnerabilityService } from '../vulnerabilities/service.js';
import type { FindingCopyStaging } from './copy-staging.js';
import {
  changesOf,
  changesOfChange,
  changesOfImport,
  type FindingWatchType,
  findingChangeRows,
  kevRowsOfVulnerabilities,
  watchRows,
} from './event-queries.js';
import type {
  FindingImportRepository,
  FindingMergeCounts,
  FindingMergeOptions,
} from './import-repository.js';
import type { FindingFilter, FindingRepository, FindingSort } from './repository.js';
import { TOTAL_COUNT_CAP } from './repository.js';
import {
  changeWhenSeenAgain,
  fixedAtChange,
  MAX_RISK_ACCEPTANCE_DAYS,
  ROLE_FOR_STATE,
  scanChangeReason,
  TRANSITIONS,
} from './rules.js';
import type {
  Finding,
  FindingEvent,
  FindingExport,
  FindingFigures,
  FindingReportGrouping,
  FindingReportRow,
  FindingSummary,
  ScanLocation,
  ScanLocationQuery,
} from './types.js';

export type { StagedFinding } from './import-repository.js';
/** The findings filter, for modules that select findings through this service (reports). */
export type { FindingFilter } from './repository.js';

export interface FindingLocation {
  kind: LocationKind;
  port?: number;
  protocol?: 'tcp' | 'udp';
  url?: string;
  parameter?: string;
  filePath?: string;
  line?: number;
  packageName?: string;
  packageVersion?: string;
}

export interface FindingInput {
  assetId: string;
  vulnerabilityId?: string;
  vulnerability?: VulnerabilityInput;
  location: FindingLocation;
  severity?: Severity;
  evidence?: string;
  source: string;
  toolFindingId?: string;
  seenAt?: Date;
}

export const EVIDENCE_CAP = 65_536;

/** The part of the deduplication key that says where on the asset the weakness is. */
export function locationKey(l: FindingLocation): string {
  switch (l.kind) {
    case 'Port':
      return `port:${l.protocol ?? 'tcp'}/${l.port}`;
    case 'Url':
      return `url:${l.url ?? ''}#${l.parameter ?? ''}`;
    case 'File':
      return `file:${l.filePath ?? ''}:${l.line ?? ''}`;
    case 'Package':
      // The same package installed at two paths (a container's layers, vendored copies) is two findings.
      return `package:${l.packageName ?? ''}@${l.packageVersion ?? ''}${l.filePath ? `:${l.filePath}` : ''}`;
    default:
      return 'none';
  }
}

function checkLocation(l: FindingLocation): void {
  if (l.kind === 'Port' && (l.port === undefined || l.port < 0 || l.port > 65535))
    throw invalid(['location', 'port'], 'is required for a port location');
  if (l.kind === 'Url' && !l.url) throw invalid(['location', 'url'], 'is required for a URL location');
  if (l.kind === 'File' && !l.filePath)
    throw invalid(['location', 'filePath'], 'is required for a file location');
  if (l.kind === 'Package' && !l.packageName)
    throw invalid(['location', 'packageName'], 'is required for a package location');
}

/**
 * Raised after findings change state, by this service and by imports; tickets follow it (they read
 * findings, so they cannot also be called by them).
 */
export type FindingsChanged = Listeners<
  [organizationId: string, findingIds: string[], cause?: { verify?: boolean } | undefined]
>;

export class FindingService {
  constructor(
    private readonly repo: FindingRepository,
    private readonly imports: FindingImportRepository,
    private readonly assets: AssetService,
    private readonly vulnerabilities: VulnerabilityService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly stateChanged: FindingsChanged,
    assetRiskContextChanged: RiskContextChanged,
    private readonly outbox: EventsService,
    private readonly audit: AuditService,
  ) {
    assetRiskContextChanged.subscribe(async (organizationId, assetId) => {
      await this.rescoreAsset(organizationId, assetId);
    });
  }

  /**
   * Records that a vulnerability was seen on an asset at a location. The same asset,
   * vulnerability and location is the same finding: seen again, it is touched (and reopened
   * when it had been fixed); RiskAccepted and FalsePositive decisions stay.
   */
  async record(
    ctx: ServiceContext,
    input: FindingInput,
  ): Promise<{ finding: Finding; created: boolean; reopened: boolean }> {
    checkLocation(input.location);
    const asset = await this.assets.get(ctx, input.assetId);
    const vulnerability = input.vulnerabilityId
      ? await this.vulnerabilities.get(ctx, input.vulnerabilityId)
      : input.vulnerability
        ? await this.vulnerabilities.resolve(ctx, input.vulnerability)
        : undefined;
    if (!vulnerability) throw invalid('vulnerability', 'give VulnerabilityId or Vulnerability');
    const dedupKey = createHash('sha256')
      .update(`${asset.id}|${vulnerability.key}|${locationKey(input.location)}`)
      .digest('hex');
    const now = this.clock();
    const seenAt = input.seenAt ?? now;
    const evidence = input.evidence ? input.evidence.slice(0, EVIDENCE_CAP) : null;
    // The report's own severity for this finding wins over the knowledge base's.
    const severity = input.severity ?? input.vulnerability?.severity ?? vulnerability.severity;
    const sla = await this.settings.sla(ctx.organizationId);

    const outcome = await this.repo.transaction(async (trx) => {
      const existing = await this.repo.findByDedupKey(ctx.organizationId, dedupKey, trx);
      if (existing) {
        await this.repo.markSeen(ctx.organizationId, existing.id, seenAt, evidence, now, trx);
        // Seen again as a scan sees it (rules.ts), with no decision of the report's own.
        const change = changeWhenSeenAgain(existing.state, null);
        if (change) {
          const fixedAt = fixedAtChange(existing.state, change.state);
          await this.repo.setState(
            ctx.organizationId,
            existing.id,
            {
              state: change.state,
              reason: null,
              until: null,
              ...(fixedAt === 'keep' ? {} : { fixedAt: fixedAt === 'set' ? now : null }),
            },
            now,
            trx,
          );
          await this.repo.addEvent(
            ctx.organizationId,
            {
              ...newHistoryEntry(ctx.actor, seenAt),
              findingId: existing.id,
              kind: 'state_changed',
              fromState: existing.state,
              toState: change.state,
              reason: scanChangeReason(change.state, input.source),
            },
            trx,
          );
          await this.announce(
            trx,
            changesOf([
              {
                organizationId: ctx.organizationId,
                findingId: existing.id,
                fromState: existing.state,
                toState: change.state,
                reason: scanChangeReason(change.state, input.source),
                actorType: ctx.actor.type,
                actorId: ctx.actor.id,
              },
            ]),
          );
          return { id: existing.id, created: false, reopened: change.state === 'Reopened' };
        }
        return { id: existing.id, created: false, reopened: false };
      }
      const id = uuidv7();
      await this.repo.insert(
        ctx.organizationId,
        {
          id,
          assetId: asset.id,
          vulnerabilityId: vulnerability.id,
          dedupKey,
          location: input.location,
          title: vulnerability.title,
          severity,
          // Placeholders: rescore below computes both in the database, as imports do.
          riskScore: 0,
          dueAt: null,
          evidence,
          source: input.source,
          toolFindingId: input.toolFindingId ?? null,
          seenAt,
          createdAt: now,
        },
        trx,
      );
      await this.repo.rescore(ctx.organizationId, { findingIds: [id] }, sla, now, trx);
      await this.repo.addEvent(
        ctx.organizationId,
        {
          ...newHistoryEntry(ctx.actor, seenAt),
          findingId: id,
          kind: 'created',
          toState: 'Open',
          details: { source: input.source },
        },
        trx,
      );
      await this.announce(
        trx,
        changesOf([
          {
            organizationId: ctx.organizationId,
            findingId: id,
            fromState: null,
            toState: 'Open',
            reason: null,
            actorType: ctx.actor.type,
            actorId: ctx.actor.id,
          },
        ]),
      );
      return { id, created: true, reopened: false };
    });
    if (outcome.reopened) await this.stateChanged.notify(ctx.organizationId, [outcome.id]);
    return { finding: await this.get(ctx, outcome.id), created: outcome.created, reopened: outcome.reopened };
  }

  async get(ctx: ServiceContext, id: string): Promise<Finding> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No finding ${id} in your organisation.`);
    return row;
  }

  events(ctx: ServiceContext, id: string): Promise<FindingEvent[]> {
    return this.repo.events(ctx.organizationId, id);
  }

  /** The filter with the lookups it needs done first (ids of matching assets and CVEs). */
  async resolveFilter(ctx: ServiceContext, filter: FindingFilter): Promise<FindingFilter> {
    const prepared = { ...filter };
    if (filter.search)
      prepared.searchAssetIds = await this.assets.idsNamed(ctx.organizationId, filter.search, 1000);
    if (filter.cve)
      prepared.cveVulnerabilityIds = await this.vulnerabilities.idsWithCve(
        ctx.organizationId,
        filter.cve,
        1000,
      );
    return prepared;
  }

  async list(
    ctx: ServiceContext,
    raw: FindingFilter,
    sort: FindingSort,
    pageSize: number,
    cursor?: string,
    includeTotal?: boolean,
  ): Promise<Omit<Page<FindingSummary>, 'totalCount'> & { totalCount: number | undefined }> {
    const filter = await this.resolveFilter(ctx, raw);
    let after: { value: string; id: string } | undefined;
    if (cursor) {
      const key = decodeCursor(cursor, ['Sort', 'Value', 'Id']);
      if (!key || key.Sort !== sort) {
        throw AppError.of(
          Problems.ValidationFailed,
          'Cursor is not valid for this sort; pass the NextCursor of a previous page with the same Sort.',
        );
      }
      after = { value: key.Value, id: key.Id };
    }
    const [rows, totalCount] = await Promise.all([
      this.repo.listPage(ctx.organizationId, filter, sort, pageSize + 1, after),
      this.totalCount(ctx.organizationId, filter, includeTotal),
    ]);
    return {
      ...keysetPage(rows, pageSize, (f) => ({ Sort: sort, Value: f.sortValue, Id: f.id })),
      totalCount,
    };
  }

  // An exact count of a large match reads every matching row; unless asked for, count only
  // small matches.
  private async totalCount(organizationId: string, filter: FindingFilter, includeTotal?: boolean) {
    if (includeTotal === true) return this.repo.count(organizationId, filter);
    if (includeTotal === false) return undefined;
    const n = await this.repo.countUpTo(organizationId, filter, TOTAL_COUNT_CAP);
    return n <= TOTAL_COUNT_CAP ? n : undefined;
  }

  /** Every finding that matches, in order, as an async stream (CSV export). */
  async *stream(
    ctx: ServiceContext,
    filter: FindingFilter,
    sort: FindingSort,
  ): AsyncGenerator<FindingExport, void, undefined> {
    yield* this.repo.stream(ctx.organizationId, await this.resolveFilter(ctx, filter), sort);
  }

  /** How many findings match (reports check a scope before queuing its work). */
  async count(ctx: ServiceContext, filter: FindingFilter): Promise<number> {
    return this.repo.count(ctx.organizationId, await this.resolveFilter(ctx, filter));
  }

  /** Every matching finding as a technical report lists it, grouped, read in chunks. */
  async *reportRows(
    ctx: ServiceContext,
    filter: FindingFilter,
    groupBy: FindingReportGrouping,
  ): AsyncGenerator<FindingReportRow, void, undefined> {
    yield* this.repo.reportStream(ctx.organizationId, await this.resolveFilter(ctx, filter), groupBy);
  }

  /**
   * The current figures of the matching findings (executive reports), due dates judged now; the
   * findings fixed within their SLA are counted over the last `fixedDays` days.
   */
  async figures(
    ctx: ServiceContext,
    filter: FindingFilter,
    soonDays = 7,
    fixedDays = 90,
  ): Promise<FindingFigures> {
    const now = this.clock();
    return this.repo.figures(
      ctx.organizationId,
      await this.resolveFilter(ctx, filter),
      now,
      soonDays,
      new Date(now.getTime() - fixedDays * 86_400_000),
    );
  }

  /** The CSV download of the findings list: recorded in the audit log, then the stream. */
  async *export(
    ctx: ServiceContext,
    filter: FindingFilter,
    sort: FindingSort,
  ): AsyncGenerator<FindingExport, void, undefined> {
    await this.audit.exportDownloaded(ctx, 'findings', { ...filter, sort });
    yield* this.stream(ctx, filter, sort);
  }

  async listOffset(
    ctx: ServiceContext,
    raw: FindingFilter,
    offset: number,
    limit: number,
  ): Promise<{ items: FindingSummary[]; totalCount: number }> {
    const filter = await this.resolveFilter(ctx, raw);
    const [items, totalCount] = await Promise.all([
      this.repo.listOffset(ctx.organizationId, filter, offset, limit),
      this.repo.count(ctx.organizationId, filter),
    ]);
    return { items, totalCount };
  }

  /**
   * A person's decision about a finding, with the rules of who may decide what. `at` back-dates
   * it (demo data gives its findings weeks of history); it is never later than now.
   */
  async changeState(
    ctx: ServiceContext,
    id: string,
    change: { state: FindingState; justification?: string; until?: Date },
    options: { at?: Date } = {},
  ): Promise<Finding> {
    const finding = await this.get(ctx, id);
    const from = finding.state;
    if (!TRANSITIONS[from].includes(change.state)) {
      throw AppError.of(
        Problems.Conflict,
        `A finding in state ${from} cannot become ${change.state}; from ${from} it can become ${TRANSITIONS[from].join(' or ')}.`,
      );
    }
    const needed = ROLE_FOR_STATE[change.state];
    if (ctx.role && !roleAllows(ctx.role, needed)) {
      throw AppError.of(
        Problems.Forbidden,
        `Moving a finding to ${change.state} requires the ${needed} role or higher; your role is ${ctx.role}.`,
      );
    }
    const justification = change.justification?.trim();
    if ((change.state === 'RiskAccepted' || change.state === 'FalsePositive') && !justification) {
      throw invalid('justification', `is required to mark a finding ${change.state}`);
    }
    const now = this.clock();
    const at = options.at && options.at < now ? options.at : now;
    const until = this.checkUntil(change.state, change.until, now);
    await this.repo.transaction(async (trx) => {
      await this.repo.setState(
        ctx.organizationId,
        id,
        {
          state: change.state,
          reason: justification ?? null,
          until,
          ...(change.state === 'Fixed'
            ? { fixedAt: at }
            : change.state === 'Reopened'
              ? { fixedAt: null }
              : {}),
        },
        now,
        trx,
      );
      await this.repo.addEvent(
        ctx.organizationId,
        {
          ...newHistoryEntry(ctx.actor, at),
          findingId: id,
          kind: 'state_changed',
          fromState: from,
          toState: change.state,
          reason: justification ?? null,
          details: until ? { until: until.toISOString() } : {},
        },
        trx,
      );
      await this.announce(
        trx,
        changesOf([
          {
            organizationId: ctx.organizationId,
            findingId: id,
            fromState: from,
            toState: change.state,
            reason: justification ?? null,
            actorType: ctx.actor.type,
            actorId: ctx.actor.id,
          },
        ]),
      );
    });
    await this.stateChanged.notify(ctx.organizationId, [id]);
    if (change.state === 'RiskAccepted')
      await this.audit.record(
        ctx,
        'finding.risk_accepted',
        { type: 'finding', id },
        { from, justification, until: until?.toISOString() ?? null },
      );
    return this.get(ctx, id);
  }

  /**
   * Applies one decision to every finding that matches the filter, in one transaction. Findings
   * whose state does not allow the move are left alone and counted as skipped.
   */
  async bulkChangeState(
    ctx: ServiceContext,
    raw: FindingFilter,
    change: { state: FindingState; justification?: string; until?: Date },
  ): Promise<{ matched: number; changed: number; skipped: number }> {
    const filter = await this.resolveFilter(ctx, raw);
    const needed = ROLE_FOR_STATE[change.state];
    if (ctx.role && !roleAllows(ctx.role, needed)) {
      throw AppError.of(
        Problems.Forbidden,
        `Moving findings to ${change.state} requires the ${needed} role or higher; your role is ${ctx.role}.`,
      );
    }
    const justification = change.justification?.trim();
    if ((change.state === 'RiskAccepted' || change.state === 'FalsePositive') && !justification) {
      throw invalid('justification', `is required to mark findings ${change.state}`);
    }
    const now = this.clock();
    const until = this.checkUntil(change.state, change.until, now);
    const fromStates = (Object.keys(TRANSITIONS) as FindingState[]).filter((s) =>
      TRANSITIONS[s].includes(change.state),
    );
    // The history rows of this change carry its id: its events are published from them, set-based.
    const changeId = uuidv7(now.getTime());
    const result = await this.repo.transaction(async (trx) => {
      const moved = await this.repo.bulkSetState(
        ctx.organizationId,
        filter,
        fromStates,
        {
          state: change.state,
          reason: justification ?? null,
          until,
          now,
          actorType: ctx.actor.type,
          actorId: ctx.actor.id,
          changeId,
        },
        trx,
      );
      if (moved.changed > 0) await this.announce(trx, changesOfChange(ctx.organizationId, changeId));
      return moved;
    });
    if (change.state === 'RiskAccepted' && result.changed > 0)
      await this.audit.record(ctx, 'findings.risk_accepted', null, {
        filter: recordedFilter(raw),
        matched: result.matched,
        changed: result.changed,
        justification,
        until: until?.toISOString() ?? null,
      });
    return { ...result, skipped: result.matched - result.changed };
  }

  /**
   * Findings of a scan's scope (or of every scope starting so, on these addresses), or these ids,
   * with where they are: what a Rampart scan needs to judge whether it looked there again (at
   * most `limit`).
   */
  scanLocations(organizationId: string, q: ScanLocationQuery, limit = 100_000): Promise<ScanLocation[]> {
    return this.repo.scanLocations(organizationId, q, limit);
  }

  /** The ids of the findings that match, up to `limit` (bulk linking to a ticket). */
  /** Which of these findings exist in the organisation (tickets link only those). */
  existingIds(organizationId: string, ids: string[]): Promise<string[]> {
    return this.repo.existingIds(organizationId, ids);
  }

  async matchingIds(ctx: ServiceContext, filter: FindingFilter, limit: number): Promise<string[]> {
    return this.repo.matchingIds(ctx.organizationId, await this.resolveFilter(ctx, filter), limit);
  }

  private checkUntil(state: FindingState, until: Date | undefined, now: Date): Date | null {
    if (state !== 'RiskAccepted') {
      if (until) throw invalid('until', 'only applies to RiskAccepted');
      return null;
    }
    if (!until) throw invalid('until', 'is required: a risk is accepted until a date');
    const max = now.getTime() + MAX_RISK_ACCEPTANCE_DAYS * 86_400_000;
    if (until.getTime() <= now.getTime() || until.getTime() > max) {
      throw invalid('until', `must be in the future and at most ${MAX_RISK_ACCEPTANCE_DAYS} days away`);
    }
    return until;
  }

  /** Overrides the scanner's severity (or removes the override); due date and risk follow. */
  async overrideSeverity(
    ctx: ServiceContext,
    id: string,
    severity: Severity | null,
    reason?: string,
  ): Promise<Finding> {
    const finding = await this.get(ctx, id);
    const why = reason?.trim();
    if (severity && !why) throw invalid('reason', 'is required to override a severity');
    const effective = severity ?? finding.severity;
    const sla = await this.settings.sla(ctx.organizationId);
    const now = this.clock();
    await this.repo.transaction(async (trx) => {
      await this.repo.setSeverityOverride(
        ctx.organizationId,
        id,
        { severity, reason: severity ? (why ?? null) : null },
        now,
        trx,
      );
      // An explicit severity is a person's judgement: rescore lets it outrank the CVSS score.
      await this.repo.rescore(ctx.organizationId, { findingIds: [id] }, sla, now, trx);
      await this.repo.addEvent(
        ctx.organizationId,
        {
          ...newHistoryEntry(ctx.actor, now),
          findingId: id,
          kind: 'severity_overridden',
          reason: why ?? null,
          details: { from: finding.effectiveSeverity, to: effective },
        },
        trx,
      );
    });
    return this.get(ctx, id);
  }

  /** Re-scores the findings on an asset (its criticality or exposure changed). */
  async rescoreAsset(organizationId: string, assetId: string): Promise<number> {
    const sla = await this.settings.sla(organizationId);
    return this.repo.rescore(organizationId, { assetId }, sla, this.clock());
  }

  /** Re-scores the findings of vulnerabilities whose intelligence changed; returns how many moved. */
  async rescoreVulnerabilities(organizationId: string, vulnerabilityIds: string[]): Promise<number> {
    if (vulnerabilityIds.length === 0) return 0;
    const sla = await this.settings.sla(organizationId);
    return this.repo.transaction(async (trx) => {
      const moved = await this.repo.rescore(organizationId, { vulnerabilityIds }, sla, this.clock(), trx);
      // Open findings of vulnerabilities that entered KEV with this intelligence (the periodic
      // watch announces any this missed, e.g. a process stopped between the load and here).
      await this.outbox.publishFromQuery(
        trx,
        'finding.kev_found',
        kevRowsOfVulnerabilities(organizationId, vulnerabilityIds),
        { once: true },
      );
      return moved;
    });
  }

  // ---- scanner-report imports (the imports module runs them; findings own the rows) ----

  /** Opens the staging a report's findings stream into while it is parsed (COPY, no transaction). */
  openImportStaging(organizationId: string, importId: string): Promise<FindingCopyStaging> {
    return this.imports.openStaging(organizationId, importId);
  }

  /**
   * Merges an import's staged findings inside the import's transaction, by the scan rules of
   * rules.ts; returns the counts and the findings whose state changed (tickets follow them).
   */
  async mergeImport(
    ctx: ServiceContext,
    merge: Omit<FindingMergeOptions, 'actorType' | 'actorId'>,
    trx: Transaction<DB>,
  ): Promise<{ counts: FindingMergeCounts; changedIds: string[] }> {
    const result = await this.imports.merge(
      ctx.organizationId,
      { ...merge, actorType: ctx.actor.type, actorId: ctx.actor.id },
      trx,
    );
    // The merge's events, set-based from the history it wrote (indexed by import), in its transaction.
    if (result.counts.New + result.changedIds.length > 0)
      await this.announce(trx, changesOfImport(ctx.organizationId, merge.importId));
    return result;
  }

  /** The imports that have findings staged: what the imports' sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return this.imports.stagedImports();
  }

  /** Removes an import's staged findings (after its merge, or when it failed). */
  clearImport(organizationId: string, importId: string): Promise<void> {
    return this.imports.clear(organizationId, importId);
  }

  /** Risk acceptances past their date return to Open; run periodically by every instance. */
  async expireRiskAcceptances(): Promise<number> {
    const now = this.clock();
    const expired = await this.repo.transaction(async (trx) => {
      const expired = await this.repo.expireRiskAcceptances(now, trx);
      for (const f of expired) {
        await this.repo.addEvent(
          f.organizationId,
          {
            ...newHistoryEntry(SYSTEM, now),
            findingId: f.id,
            kind: 'state_changed',
            fromState: 'RiskAccepted',
            toState: 'Open',
            reason: 'Risk acceptance expired',
          },
          trx,
        );
      }
      if (expired.length > 0)
        await this.announce(
          trx,
          changesOf(
            expired.map((f) => ({
              organizationId: f.organizationId,
              findingId: f.id,
              fromState: 'RiskAccepted',
              toState: 'Open',
              reason: 'Risk acceptance expired',
              actorType: SYSTEM.type,
              actorId: SYSTEM.id,
            })),
          ),
        );
      return expired;
    });
    const byOrganization = new Map<string, string[]>();
    for (const f of expired)
      byOrganization.set(f.organizationId, [...(byOrganization.get(f.organizationId) ?? []), f.id]);
    for (const [organizationId, ids] of byOrganization) await this.stateChanged.notify(organizationId, ids);
    return expired.length;
  }

  /**
   * The periodic watch (the sla-watch job), in every organisation: SLA breaches and due dates
   * within a week, risk acceptances ending within a week, open KEV findings never announced.
   * Each is published once per occurrence (its mark, in the same statement as its event).
   */
  async watch(): Promise<Record<FindingWatchType, number>> {
    const now = this.clock();
    const types: FindingWatchType[] = [
      'finding.sla_breached',
      'finding.sla_due_soon',
      'risk_acceptance.expiring',
      'finding.kev_found',
    ];
    return this.repo.transaction(async (trx) => {
      const counts = {} as Record<FindingWatchType, number>;
      for (const type of types)
        counts[type] = await this.outbox.publishFromQuery(
          trx,
          type,
          watchRows(type, now, { soonDays: WATCH_SOON_DAYS, breachWindowDays: WATCH_BREACH_WINDOW_DAYS }),
          { once: true, time: now },
        );
      return counts;
    });
  }

  /** The events of these changes of findings, in the transaction that made them. */
  private async announce(trx: Transaction<DB>, changes: ReturnType<typeof changesOf>): Promise<void> {
    for (const type of ['finding.created', 'finding.state_changed', 'finding.reopened'] as const)
      await this.outbox.publishFromQuery(trx, type, findingChangeRows(type, changes));
    await this.outbox.publishFromQuery(
      trx,
      'finding.kev_found',
      findingChangeRows('finding.kev_found', changes),
      {
        once: true,
      },
    );
  }
}

/** Due dates and ends of risk acceptances announced this many days ahead. */
export const WATCH_SOON_DAYS = 7;
/**
 * SLA breaches announced up to this many days after the due date: the first watch after an
 * upgrade does not announce every breach of the past at once.
 */
export const WATCH_BREACH_WINDOW_DAYS = 30;
