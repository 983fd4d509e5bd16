import { isIP } from 'node:net';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import { ruleOfScheduleOption } from '../../jobs/schedule-option.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { DiscoveryReport, ReportedHost } from '../discoveryscans/service.js';
import { keptSchedule } from '../savedscans/checks.js';
import type { ScanNotificationSync } from '../savedscans/types.js';
import type { GroupWrite, ScanGroupRepository, TrackedScan } from './repository.js';
import type {
  AssetMonitor,
  GroupNote,
  GroupScanSettings,
  GroupScanSummary,
  ScanGroup,
  ScanGroupInput,
} from './types.js';

// What this module asks of the modules it works with, by the little it uses of each.

/**
 * A kind of scan a group holds (system or web), as a group's monitoring adds, starts and removes
 * them; `Target` is what the kind's scan is made for (a host's address, a URL).
 */
export interface GroupScans<Target extends object> {
  create(
    ctx: ServiceContext,
    input: {
      groupId: string;
      name: string;
      templateId: string | null;
      nodeId: string | null;
      schedule: ScheduleOption | null;
    } & Target,
  ): Promise<{ id: string }>;
  start(ctx: ServiceContext, id: string): Promise<void>;
  remove(ctx: ServiceContext, id: string): Promise<void>;
  listByGroup(ctx: ServiceContext, groupId: string): Promise<GroupScanSummary[]>;
}

/** The system scans module: a scan per host. */
export type GroupSystemScans = GroupScans<{ target: string }>;
/** The web scans module: a scan per host and HTTP(S) port. */
export type GroupWebScans = GroupScans<{ url: string }>;

/** What a group's settings name in other modules: users, templates, nodes, discovery scans. */
export interface GroupReferences {
  /** The user's name and e-mail, or undefined when the organisation has no such user. */
  user(ctx: ServiceContext, id: string): Promise<{ id: string; name: string; email: string } | undefined>;
  /** The template's kind and name, or undefined. */
  template(ctx: ServiceContext, id: string): Promise<{ kind: string; name: string } | undefined>;
  /** Whether the organisation has a node (not revoked) that serves the kind. */
  nodeServes(ctx: ServiceContext, id: string, kind: 'System' | 'Web'): Promise<boolean>;
  discoveryScanExists(ctx: ServiceContext, id: string): Promise<boolean>;
  /** Whether the organisation has a schedule with this id. */
  scheduleExists(ctx: ServiceContext, id: string): Promise<boolean>;
}

export const MAX_SCANS_PER_GROUP = 10_000;
const MAX_MONITORS = 50;

/** A port range text such as `80,8080-8090` as a set of ports; throws naming the field. */
export function parsePortRanges(text: string, field: readonly string[]): Set<number> {
  const ports = new Set<number>();
  const parts = text
    .split(/[,;\s]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  for (const part of parts) {
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    const first = m ? Number(m[1]) : Number.NaN;
    const last = m?.[2] ? Number(m[2]) : first;
    if (!m || first < 1 || last > 65535 || first > last)
      throw invalid(field, `'${part}' is not a port or a port range (1–65535, such as 80 or 8080-8090).`);
    for (let p = first; p <= last; p++) ports.add(p);
  }
  return ports;
}

/** The URL a web scan of a host's HTTP(S) port checks. */
export function webUrlOf(scheme: 'http' | 'https', address: string, port: number): string {
  const host = isIP(address) === 6 ? `[${address}]` : address;
  return `${scheme}://${host}:${port}/`;
}

const system = (organizationId: string): ServiceContext => ({
  organizationId,
  actor: { type: 'system', id: null },
});

/**
 * Scan groups (vulnerability scan groups as the original service has them): settings for the
 * system and web scans they hold, and asset monitoring that follows discovery scans' reports —
 * new hosts get a system scan (and web scans on their HTTP(S) ports) up to the group's maximum,
 * started at once when asked; hosts gone get theirs removed when asked; a host with new open
 * ports gets its system scan started when asked.
 */
export class ScanGroupService {
  constructor(
    private readonly repo: ScanGroupRepository,
    private readonly refs: GroupReferences,
    private readonly systemScans: GroupSystemScans,
    private readonly webScans: GroupWebScans,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    /** The rules of each group's MessageNotification, kept in step when it is saved or deleted. */
    private readonly notificationRules?: ScanNotificationSync,
  ) {}

  private owner(group: { id: string; name: string }) {
    return { kind: 'ScanGroup' as const, id: group.id, name: group.name };
  }

  async create(ctx: ServiceContext, input: ScanGroupInput): Promise<ScanGroup> {
    const write = await this.check(ctx, input);
    const group = await this.repo.insert(
      ctx.organizationId,
      uuidv7(),
      write,
      ctx.userId ?? null,
      this.clock(),
    );
    await this.audit.record(
      ctx,
      'scan-group.created',
      { type: 'scan-group', id: group.id },
      { name: group.name },
    );
    await this.notificationRules?.(ctx, this.owner(group), group.notifications);
    return group;
  }

  async update(ctx: ServiceContext, id: string, input: ScanGroupInput): Promise<ScanGroup> {
    await this.get(ctx, id);
    const write = await this.check(ctx, input);
    const group = await this.repo.update(ctx.organizationId, id, write, this.clock());
    if (!group) throw notFound(id);
    await this.audit.record(ctx, 'scan-group.updated', { type: 'scan-group', id }, { name: group.name });
    await this.notificationRules?.(ctx, this.owner(group), group.notifications);
    return group;
  }

  async get(ctx: ServiceContext, id: string): Promise<ScanGroup> {
    const group = await this.repo.find(ctx.organizationId, id);
    if (!group) throw notFound(id);
    return group;
  }

  async list(ctx: ServiceContext, q: { pageSize: number; cursor?: string }) {
    const after = q.cursor ? decodeCreatedAtCursor(q.cursor) : undefined;
    if (q.cursor && !after) throw invalid('cursor', 'is not a cursor this list gave');
    const rows = await this.repo.page(ctx.organizationId, q.pageSize, after);
    return { ...createdAtPage(rows, q.pageSize), totalCount: await this.repo.count(ctx.organizationId) };
  }

  /** Every group by name and id. */
  names(ctx: ServiceContext): Promise<{ id: string; name: string }[]> {
    return this.repo.names(ctx.organizationId);
  }

  /** The responsible person, as the original answers it (`AssignedToUser`). */
  async responsible(ctx: ServiceContext, group: ScanGroup) {
    return group.responsibleUserId ? ((await this.refs.user(ctx, group.responsibleUserId)) ?? null) : null;
  }

  async systemScansOf(ctx: ServiceContext, id: string): Promise<GroupScanSummary[]> {
    await this.get(ctx, id);
    return this.systemScans.listByGroup(ctx, id);
  }

  async webScansOf(ctx: ServiceContext, id: string): Promise<GroupScanSummary[]> {
    await this.get(ctx, id);
    return this.webScans.listByGroup(ctx, id);
  }

  /**
   * The group, its monitoring and its scans go. A scan with a run under way answers 409 (stop it
   * first); scans removed before it stay removed.
   */
  async remove(ctx: ServiceContext, id: string): Promise<void> {
    const group = await this.get(ctx, id);
    for (const s of await this.systemScans.listByGroup(ctx, id)) await this.systemScans.remove(ctx, s.id);
    for (const s of await this.webScans.listByGroup(ctx, id)) await this.webScans.remove(ctx, s.id);
    await this.repo.delete(ctx.organizationId, id);
    await this.audit.record(ctx, 'scan-group.deleted', { type: 'scan-group', id }, { name: group.name });
    await this.notificationRules?.(ctx, this.owner(group), null);
  }

  // ---- asset monitoring ----

  /** A discovery scan's run completed: every active monitor that follows it acts on its report. */
  async discoveryReported(report: DiscoveryReport): Promise<void> {
    const ctx = system(report.organizationId);
    for (const { groupId, monitor } of await this.repo.followers(report.organizationId, report.scanId)) {
      const group = await this.repo.find(report.organizationId, groupId);
      if (!group) continue;
      const notes: string[] = [];
      if (monitor.system.track && group.system.enabled)
        await this.followSystem(ctx, group, monitor, report.hosts, notes);
      if (monitor.web.track && group.web.enabled)
        await this.followWeb(ctx, group, monitor, report.hosts, notes);
      const at = this.clock();
      await this.repo.addNotes(
        report.organizationId,
        group.id,
        notes.map((message): GroupNote => ({ at, message: `${report.scanName}: ${message}` })),
      );
    }
  }

  private async followSystem(
    ctx: ServiceContext,
    group: ScanGroup,
    monitor: AssetMonitor,
    hosts: ReportedHost[],
    notes: string[],
  ): Promise<void> {
    const org = group.organizationId;
    const systemScans = this.systemScans;
    const tracked = new Map((await this.repo.tracked(org, group.id, 'System')).map((t) => [t.address, t]));
    let count = (await systemScans.listByGroup(ctx, group.id)).length;
    for (const host of hosts) {
      const t = tracked.get(host.address);
      if (host.status === 'Gone') {
        if (t && monitor.system.removeWhenUndiscovered && (await this.removeScan(ctx, 'System', t, notes))) {
          await this.repo.untrack(org, group.id, t);
          count -= 1;
        }
        continue;
      }
      if (t) {
        const fresh = host.openPorts.filter((p) => !t.knownPorts.includes(p));
        if (fresh.length === 0) continue;
        await this.repo.setKnownPorts(
          org,
          group.id,
          t,
          [...t.knownPorts, ...fresh].sort((a, b) => a - b),
        );
        if (monitor.system.runImmediatelyIfNewServicesDiscovered)
          await this.startScan(
            ctx,
            'System',
            t.scanId,
            `${host.address} has new open ports (${fresh.join(', ')})`,
            notes,
          );
        continue;
      }
      if (count >= group.system.maxScans) {
        notes.push(
          `no system scan added for ${host.address}: the group has ${count} system scans, its MaxSystemScans is ${group.system.maxScans}.`,
        );
        continue;
      }
      try {
        const scan = await systemScans.create(ctx, {
          groupId: group.id,
          name: host.hostname?.replace(/\.$/, '') || host.address,
          target: host.address,
          templateId: group.system.templateId,
          nodeId: group.system.nodeId,
          schedule: group.system.schedule,
        });
        const added: TrackedScan = {
          kind: 'System',
          address: host.address,
          port: 0,
          scanId: scan.id,
          knownPorts: [...host.openPorts].sort((a, b) => a - b),
        };
        await this.repo.track(org, group.id, added, this.clock());
        tracked.set(host.address, added);
        count += 1;
        if (monitor.system.runImmediatelyAfterAdd)
          await this.startScan(ctx, 'System', scan.id, `${host.address} was added`, notes);
      } catch (error) {
        notes.push(`no system scan added for ${host.address}: ${messageOf(error)}`);
      }
    }
  }

  private async followWeb(
    ctx: ServiceContext,
    group: ScanGroup,
    monitor: AssetMonitor,
    hosts: ReportedHost[],
    notes: string[],
  ): Promise<void> {
    const org = group.organizationId;
    const http = parsePortRanges(monitor.web.httpPorts, ['trackedHttpPortRangeForWebScan']);
    const https = parsePortRanges(monitor.web.httpsPorts, ['trackedHttpsPortRangeForWebScan']);
    const tracked = await this.repo.tracked(org, group.id, 'Web');
    const key = (address: string, port: number) => `${address} ${port}`;
    const byKey = new Map(tracked.map((t) => [key(t.address, t.port), t]));
    let count = (await this.webScans.listByGroup(ctx, group.id)).length;
    for (const host of hosts) {
      if (host.status === 'Gone') {
        if (!monitor.web.removeWhenUndiscovered) continue;
        for (const t of tracked.filter((t) => t.address === host.address)) {
          if (!(await this.removeScan(ctx, 'Web', t, notes))) continue;
          await this.repo.untrack(org, group.id, t);
          byKey.delete(key(t.address, t.port));
          count -= 1;
        }
        continue;
      }
      for (const port of host.openPorts) {
        const scheme = https.has(port) ? 'https' : http.has(port) ? 'http' : null;
        if (!scheme || byKey.has(key(host.address, port))) continue;
        const url = webUrlOf(scheme, host.address, port);
        if (count >= group.web.maxScans) {
          notes.push(
            `no web scan added for ${url}: the group has ${count} web scans, its MaxWebScans is ${group.web.maxScans}.`,
          );
          continue;
        }
        try {
          const scan = await this.webScans.create(ctx, {
            groupId: group.id,
            name: `${host.hostname?.replace(/\.$/, '') || host.address}:${port}`,
            url,
            templateId: group.web.templateId,
            nodeId: group.web.nodeId,
            schedule: group.web.schedule,
          });
          const added: TrackedScan = {
            kind: 'Web',
            address: host.address,
            port,
            scanId: scan.id,
            knownPorts: [port],
          };
          await this.repo.track(org, group.id, added, this.clock());
          byKey.set(key(host.address, port), added);
          count += 1;
          if (monitor.web.runImmediatelyAfterAdd)
            await this.startScan(ctx, 'Web', scan.id, `${url} was added`, notes);
        } catch (error) {
          notes.push(`no web scan added for ${url}: ${messageOf(error)}`);
        }
      }
    }
  }

  private async startScan(
    ctx: ServiceContext,
    kind: 'System' | 'Web',
    scanId: string,
    why: string,
    notes: string[],
  ): Promise<void> {
    try {
      await this.scansOf(kind).start(ctx, scanId);
    } catch (error) {
      notes.push(`${why}, but its ${kind.toLowerCase()} scan did not start: ${messageOf(error)}`);
    }
  }

  /** Removes a tracked scan; true when it is gone (already gone counts), false when it must wait. */
  private async removeScan(ctx: ServiceContext, kind: 'System' | 'Web', t: TrackedScan, notes: string[]) {
    try {
      await this.scansOf(kind).remove(ctx, t.scanId);
      return true;
    } catch (error) {
      if (error instanceof AppError && error.problem === Problems.NotFound) return true;
      notes.push(`the ${kind.toLowerCase()} scan of ${t.address} was not removed: ${messageOf(error)}`);
      return false;
    }
  }

  private scansOf(kind: 'System' | 'Web'): GroupSystemScans | GroupWebScans {
    return kind === 'System' ? this.systemScans : this.webScans;
  }

  // ---- checks ----

  private async check(ctx: ServiceContext, input: ScanGroupInput): Promise<GroupWrite> {
    const name = input.name.trim();
    if (name.length === 0) throw invalid('scanGroupName', 'A scan group needs a name.');
    if (name.length > 200) throw invalid('scanGroupName', 'must have at most 200 characters');
    if (input.responsibleUserId && !(await this.refs.user(ctx, input.responsibleUserId)))
      throw AppError.of(Problems.NotFound, `No user ${input.responsibleUserId} in this organisation.`);
    const systemSettings = await this.checkSettings(ctx, 'System', input.system);
    const webSettings = await this.checkSettings(ctx, 'Web', input.web);
    if (input.monitors.length > MAX_MONITORS)
      throw invalid('assetMonitoringConfigurations', `A group takes at most ${MAX_MONITORS} configurations.`);
    const monitors: AssetMonitor[] = [];
    for (const [i, m] of input.monitors.entries()) {
      const at = ['assetMonitoringConfigurations', String(i)];
      if (!(await this.refs.discoveryScanExists(ctx, m.discoveryScanId)))
        throw AppError.of(Problems.NotFound, `No discovery scan ${m.discoveryScanId} in this organisation.`);
      await this.checkSchedule(ctx, m.scheduleId, [...at, 'scheduleId']);
      parsePortRanges(m.web.httpPorts, [...at, 'trackedHttpPortRangeForWebScan']);
      parsePortRanges(m.web.httpsPorts, [...at, 'trackedHttpsPortRangeForWebScan']);
      const id = m.id ?? uuidv7();
      if (monitors.some((o) => o.id === id))
        throw invalid([...at, 'id'], `'${id}' is used by two configurations.`);
      monitors.push({ ...m, id });
    }
    return {
      name,
      description: input.description?.trim() || null,
      responsibleUserId: input.responsibleUserId,
      scanningMode: input.scanningMode,
      system: systemSettings,
      web: webSettings,
      notifications: input.notifications,
      monitors,
    };
  }

  private async checkSettings(
    ctx: ServiceContext,
    kind: 'System' | 'Web',
    s: GroupScanSettings,
  ): Promise<GroupScanSettings> {
    const field = (name: string) => `${kind.toLowerCase()}Scan${name}`;
    const max = kind === 'System' ? 'maxSystemScans' : 'maxWebScans';
    if (!Number.isInteger(s.maxScans) || s.maxScans < 0 || s.maxScans > MAX_SCANS_PER_GROUP)
      throw invalid(max, `must be a whole number from 0 to ${MAX_SCANS_PER_GROUP}`);
    if (s.templateId) {
      const template = await this.refs.template(ctx, s.templateId);
      if (!template)
        throw AppError.of(Problems.NotFound, `No scan template ${s.templateId} in this organisation.`);
      if (template.kind !== kind)
        throw invalid(
          field('TemplateId'),
          `'${template.name}' is a ${template.kind} template, not a ${kind.toLowerCase()} one.`,
        );
    }
    if (s.nodeId && !(await this.refs.nodeServes(ctx, s.nodeId, kind)))
      throw AppError.of(
        Problems.NotFound,
        `No scan node ${s.nodeId} serving ${kind.toLowerCase()} scans in this organisation.`,
      );
    await this.checkSchedule(ctx, s.scheduleId, [field('ScheduleId')]);
    if (s.schedule) ruleOfScheduleOption(s.schedule, [field('Schedule')]);
    return { ...s, schedule: keptSchedule(s.schedule) };
  }

  /**
   * An original's schedule id must name a schedule of this organisation: a client that pastes
   * another tenant's id learns so at once instead of getting a group that never follows it.
   */
  private async checkSchedule(ctx: ServiceContext, id: string | null, field: string[]): Promise<void> {
    if (id && !(await this.refs.scheduleExists(ctx, id)))
      throw invalid(field, `'${id}' names no schedule of this organisation.`);
  }
}

function notFound(id: string): AppError {
  return AppError.of(Problems.NotFound, `No scan group ${id} in this organisation.`);
}

/** A refusal's sentence, kept as a note; anything else fails the job, which logs it and tries again. */
function messageOf(error: unknown): string {
  if (error instanceof AppError) return error.detail;
  throw error;
}
