import { type Static, Type } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { invalid } from '../../problems/app-error.js';
import type { ScanKind } from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { DiscoveryScanService } from '../discoveryscans/service.js';
import type { DiscoveryScanInput } from '../discoveryscans/types.js';
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../savedscans/types.js';
import { DEFAULT_DISCOVERY_TEMPLATE_ID } from '../scantemplates/built-in.js';
import type { ScanTemplateService } from '../scantemplates/service.js';
import { ORIGINAL_SHARED_DISCOVERY_NODE_ID, ORIGINAL_T1_TEMPLATE_ID, trimPathParams } from './quirks.js';
import {
  NameIdList,
  NameValueList,
  RadarDiscoveryHostPage,
  RadarDiscoveryScanBody,
  RadarScanPage,
} from './scan-schemas.js';
import { Paging } from './schemas.js';

/** The scan nodes the original's clients pick from, by the kind they serve. */
export interface ScanNodeDirectory {
  serving(ctx: ServiceContext, kind: ScanKind): Promise<{ id: string; name: string }[]>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A list the original sends as text (comma, semicolon or space separated) or as an array. */
function listOf(value: string | string[] | null | undefined): string[] {
  const parts = value == null ? [] : Array.isArray(value) ? value : value.split(/[,;\s]+/);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

function uuidOf(value: unknown): string | null {
  return typeof value === 'string' && UUID.test(value.trim()) ? value.trim().toLowerCase() : null;
}

/** The original's level ids, as its web app sends them beside the names. */
const LEVEL_BY_ID: Record<string, NotificationLevel> = { '0': 'Never', '6': 'ScanStartsEnds' };

type RadarBody = Static<typeof RadarDiscoveryScanBody>;

/** The scan's name: top-level `Name`, else the first target's (real clients send only that). */
function nameOf(b: RadarBody): string {
  const name = [b.Name, ...(b.scanTargets ?? []).map((t) => t.Name)].find((n) => n?.trim());
  if (!name) throw invalid('Name', 'A scan needs a name (Name, or scanTargets[0].Name).');
  return name.trim();
}

/** The node: none named, or the original's shared node, means any node serving discovery scans. */
function nodeOf(b: RadarBody): string | null {
  const id = uuidOf(b.ScanNodeId) ?? uuidOf(b.ScanNode?.Id);
  return id === ORIGINAL_SHARED_DISCOVERY_NODE_ID ? null : id;
}

/** The original's scan object as Rampart's scan. Throws 400 naming the field it cannot read. */
export async function radarScanInput(
  ctx: ServiceContext,
  b: RadarBody,
  templates: ScanTemplateService,
): Promise<DiscoveryScanInput> {
  const targets =
    b.scanTargets && b.scanTargets.length > 0
      ? b.scanTargets.map((t) => ({ range: t.Range, name: t.Name ?? null, exclude: listOf(t.Exclude) }))
      : b.ScanTargets && b.ScanTargets.length > 0
        ? b.ScanTargets.map((t) => ({ range: t.Range, name: t.Name ?? null, exclude: t.Exclude ?? [] }))
        : listOf(b.Range).map((range) => ({ range, name: null, exclude: [] }));
  if (targets.length === 0)
    throw invalid('scanTargets', 'A scan needs at least one target (scanTargets or Range).');
  return {
    name: nameOf(b),
    targets,
    exclusions: listOf(b.Exclude),
    templateId: await templateOf(ctx, b, templates),
    nodeId: nodeOf(b),
    notifications: (b.MessageNotification ?? []).map((n, i) => {
      const named = NOTIFICATION_LEVELS.find(
        (l) => l.toLowerCase() === (n.NotificationLevel ?? '').toLowerCase(),
      );
      const level = named ?? LEVEL_BY_ID[String(n.NotificationLevelId ?? '')];
      if (!level)
        throw invalid(
          ['MessageNotification', String(i), 'NotificationLevel'],
          `is not one of ${NOTIFICATION_LEVELS.join(', ')}`,
        );
      const emailAddresses = listOf(n.EmailAddresses);
      const bad = emailAddresses.find((e) => !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(e));
      if (bad)
        throw invalid(
          ['MessageNotification', String(i), 'EmailAddresses'],
          `'${bad}' is not an e-mail address`,
        );
      return { emailAddresses, level };
    }),
    responsibleUserId: null,
    schedule: b.ScheduleOption ?? null,
  };
}

/**
 * By id (the original's T1 id meaning Rampart's T1), else by name (the original's clients may send
 * only the name), else the default. An id of no discovery template of the organisation is a 400
 * naming it, never a silent default.
 */
async function templateOf(
  ctx: ServiceContext,
  b: RadarBody,
  templates: ScanTemplateService,
): Promise<string> {
  const field = uuidOf(b.TemplateId) ? 'TemplateId' : ['ScanTemplate', 'Id'];
  const id = uuidOf(b.TemplateId) ?? uuidOf(b.ScanTemplate?.Id);
  if (id === ORIGINAL_T1_TEMPLATE_ID) return DEFAULT_DISCOVERY_TEMPLATE_ID;
  if (id) {
    const template = await templates.find(ctx, id);
    if (template?.kind !== 'Discovery')
      throw invalid(field, `'${id}' is not a discovery scan template of this organisation.`);
    return id;
  }
  const name = b.ScanTemplate?.Name?.trim();
  if (name) {
    const match = (await templates.list(ctx, 'Discovery')).find(
      (t) => t.name.toLowerCase() === name.toLowerCase(),
    );
    if (!match) throw invalid(['ScanTemplate', 'Name'], `No discovery template named '${name}'.`);
    return match.id;
  }
  if (b.TemplateId || b.ScanTemplate?.Id) throw invalid('TemplateId', 'is not a scan template id');
  return DEFAULT_DISCOVERY_TEMPLATE_ID;
}

/**
 * The original service's scan-node, scan-template and discovery-scan calls, answered as its
 * clients read them (RADAR-COMPAT.md). Our own resources serve the same data with our
 * conventions under /scannodes, /scantemplates and /discoveryscans.
 */
export const radarScanRoutes =
  (scans: DiscoveryScanService, templates: ScanTemplateService, nodes: ScanNodeDirectory): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Compatibility'];

    const nodeList = (path: string, kind: ScanKind, operationId: string) =>
      route(app, ctx, {
        method: 'GET',
        url: path,
        channels: BOTH,
        access: { role: 'ReadOnly' },
        schema: {
          operationId,
          summary: `Scan nodes serving ${kind.toLowerCase()} scans, as the original lists them`,
          description: '`Value` is the node’s id, which clients send back as `ScanNodeId`.',
          tags,
          response: { 200: NameValueList },
        },
        handler: async (request) =>
          (await nodes.serving(contextOf(request), kind)).map((n) => ({ Name: n.name, Value: n.id })),
      });
    nodeList('/scannodes/discoveryscan', 'Discovery', 'listDiscoveryScanNodesCompat');
    nodeList('/scannodes/systemscan', 'System', 'listSystemScanNodesCompat');
    nodeList('/scannodes/webscan', 'Web', 'listWebScanNodesCompat');

    const templateList = (path: string, kind: ScanKind, operationId: string) =>
      route(app, ctx, {
        method: 'GET',
        url: path,
        channels: BOTH,
        access: { role: 'ReadOnly' },
        schema: {
          operationId,
          summary: `${kind} scan templates by name and id, as the original lists them`,
          description: `The built-in and the organisation’s own ${kind.toLowerCase()} templates.`,
          tags,
          response: { 200: NameIdList },
        },
        handler: async (request) =>
          (await templates.list(contextOf(request), kind)).map((t) => ({ Name: t.name, Id: t.id })),
      });
    templateList('/scantemplates/systemscan/simple', 'System', 'listSystemScanTemplatesCompat');
    templateList('/scantemplates/webscan/simple', 'Web', 'listWebScanTemplatesCompat');
    templateList('/scantemplates/discoveryscan/simple', 'Discovery', 'listDiscoveryScanTemplatesCompat');

    route(app, ctx, {
      method: 'GET',
      url: '/discoveryscans/simple',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listDiscoveryScansSimple',
        summary: 'Every discovery scan by name and id',
        tags,
        response: { 200: NameIdList },
      },
      handler: async (request) => {
        const all = await scans.listOffset(contextOf(request), 0, 10_000);
        return all.items.map((s) => ({ Name: s.name, Id: s.id }));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/discoveryscans/any',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'anyDiscoveryScans',
        summary: 'Whether the organisation has any discovery scan',
        tags,
        response: { 200: Type.Boolean() },
      },
      handler: async (request) => scans.any(contextOf(request)),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/discoveryscans/withstartindex/:StartIndex/andpagesize/:PageSize',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      idempotency: false,
      schema: {
        operationId: 'listDiscoveryScansByOffset',
        summary: 'Discovery scans by offset, as the original service lists them',
        description:
          'Oldest first. `Range` is the targets comma-separated; `LastReportId` the latest completed run.',
        tags,
        params: Paging,
        body: Type.Optional(
          Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null(), Type.Literal('')]),
        ),
        response: { 200: RadarScanPage },
      },
      handler: async (request) => {
        const page = await scans.listOffset(
          contextOf(request),
          request.params.StartIndex,
          request.params.PageSize,
        );
        return {
          Items: page.items.map((s) => ({
            Id: s.id,
            Name: s.name,
            Range: s.targets.map((t) => t.range).join(','),
            LastReportId: s.lastCompletedRunId,
            ScanLastCompleted: s.lastCompletedAt?.toISOString() ?? null,
          })),
          TotalCount: page.totalCount,
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/discoveryscans',
      channels: ['integration'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'createDiscoveryScanCompat',
        summary: 'Create a discovery scan from the original service’s scan object',
        description: [
          'Takes the body the original’s clients send (`scanTargets` and `scanMode` in camelCase; `Name` null with the name in `scanTargets[0].Name`; the original’s fixed ids of “Host Discovery [T1]” and of the shared node “General Purpose Discovery Scan”, read as Rampart’s T1 and any node; `Range` and `Exclude` comma-separated, `ScanNode`/`ScanNodeId`, `ScanTemplate`/`TemplateId`, `MessageNotification`; other fields accepted and ignored) and answers the new scan’s id as a JSON string, which clients read after stripping `"`, `[` and `]`.',
          'The latest channel’s `POST /discoveryscans` takes Rampart’s own body instead.',
        ].join('\n\n'),
        tags,
        body: RadarDiscoveryScanBody,
        response: { 200: Type.String({ format: 'uuid', description: 'The new scan’s id.' }) },
      },
      handler: async (request) => {
        const context = contextOf(request);
        const scan = await scans.create(context, await radarScanInput(context, request.body, templates));
        return scan.id;
      },
    });

    route(app, ctx, {
      method: 'PUT',
      url: '/discoveryscans/:Id/start',
      channels: BOTH,
      access: { role: 'Analyst' },
      preValidation: trimPathParams,
      schema: {
        operationId: 'startDiscoveryScanCompat',
        summary: 'Run a discovery scan now, as the original service starts one',
        description:
          'Answers 200 with the queued run (clients read only the status). Same rules as `POST /discoveryscans/{Id}/runs`.',
        tags,
        params: Type.Object({ Id: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ Id: Type.String(), State: Type.String() }, { additionalProperties: false }),
        },
      },
      handler: async (request) => {
        const run = await scans.start(contextOf(request), request.params.Id);
        return { Id: run.id, State: run.state };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/discoveryscans/:Id/reports/latest/hosts/withStartIndex/:StartIndex/andPageSize/:PageSize',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      idempotency: false,
      preValidation: trimPathParams,
      schema: {
        operationId: 'listDiscoveryHostsCompat',
        summary: 'The hosts of a discovery scan’s latest completed run, by offset',
        description:
          'Note `IPAddress` (not `IpAddress`), as the original spells it here. Hosts gone since the previous run are not listed. A scan that never completed a run answers an empty list (clients treat non-200 as fatal).',
        tags,
        params: Type.Object(
          { Id: Type.String({ format: 'uuid' }), ...Paging.properties },
          { additionalProperties: false },
        ),
        body: Type.Optional(
          Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null(), Type.Literal('')]),
        ),
        response: { 200: RadarDiscoveryHostPage },
      },
      handler: async (request) => {
        const context = contextOf(request);
        const scan = await scans.get(context, request.params.Id);
        if (!scan.lastCompletedRunId) return { Items: [], TotalCount: 0 };
        const page = await scans.report(context, scan.id, 'latest', {
          status: 'Live',
          offset: request.params.StartIndex,
          limit: request.params.PageSize,
        });
        return {
          Items: page.items.map((h) => ({
            IPAddress: h.address,
            Hostname: h.hostname,
            OperatingSystem: h.osGuess,
            MacAddress: h.macAddress,
          })),
          TotalCount: page.totalCount,
        };
      },
    });
  };
