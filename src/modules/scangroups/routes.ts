import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { trimPathParams } from '../radar-compat/quirks.js';
import { toPageDto } from '../savedscans/presenters.js';
import { ScanIdParams, ScanListQuery } from '../savedscans/schemas.js';
import { scanGroupInputOf } from './input.js';
import { toGroupScanDto, toScanGroupDto } from './presenters.js';
import { GroupScanList, NameIdList, ScanGroupBody, ScanGroupListSchema, ScanGroupSchema } from './schemas.js';
import type { ScanGroupService } from './service.js';
import type { ScanGroup } from './types.js';

const BODY_HELP = [
  'The body is the original service’s scan group object, as its clients send it to either channel: `ScanGroupName` (or `Name`), `ScanDescription`, `ResponsiblePersonId`, `ScanningMode` (`RegularScan`), the system and web scan settings (`SystemScanSettingsEnabled`, `MaxSystemScans`, `SystemScanTemplateId`, `SystemScanNodeId`, `SystemScanSchedule`, and the same for `Web`), `MessageNotification` and `AssetMonitoringConfigurations` (system and web variants in one shape). Booleans and counts may be text (`"true"`, `"True"`, `"10"`); fields Rampart has no use for are accepted and ignored.',
  'Asset monitoring: when a followed discovery scan completes a run, each new host gets a system scan (named after it, its address the target, the group’s template, node and schedule) up to MaxSystemScans, started at once with RunSystemScanImmediatelyAfterAdd; a host reported gone loses it with RemoveSystemScanWhenUndiscovered; a host with open ports not seen before has its scan started with RunSystemScanImmediatelyIfNewServicesDiscovered. Web monitoring adds a web scan per host and open port inside TrackedHttpPortRangeForWebScan (http) or TrackedHttpsPortRangeForWebScan (https), up to MaxWebScans. What was not done, and why, is listed in `Notes`.',
].join('\n\n');

export const scanGroupRoutes =
  (groups: ScanGroupService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Scan groups'];
    const dto = async (request: Parameters<typeof contextOf>[0], g: ScanGroup) =>
      toScanGroupDto(g, await groups.responsible(contextOf(request), g));

    route(app, ctx, {
      method: 'GET',
      url: '/scangroups',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listScanGroups',
        summary: 'Scan groups, oldest first',
        tags,
        querystring: ScanListQuery,
        response: { 200: ScanGroupListSchema },
      },
      handler: async (request) => {
        const page = await groups.list(contextOf(request), {
          pageSize: request.query.PageSize ?? 50,
          cursor: request.query.Cursor,
        });
        return toPageDto(page, (g) => dto(request, g));
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/scangroups',
      channels: BOTH,
      access: { role: 'Manager' },
      schema: {
        operationId: 'createScanGroup',
        summary: 'Create a scan group',
        description: `${BODY_HELP}\n\nAnswers 200 with the created group, \`AssignedToUser\` included, as the original does (its clients read it).`,
        tags,
        body: ScanGroupBody,
        response: { 200: ScanGroupSchema },
      },
      handler: async (request) =>
        dto(request, await groups.create(contextOf(request), scanGroupInputOf(request.body))),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/scangroups/simple',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listScanGroupsSimple',
        summary: 'Every scan group by name and id, as the original lists them',
        tags,
        response: { 200: NameIdList },
      },
      handler: async (request) =>
        (await groups.names(contextOf(request))).map((g) => ({ Name: g.name, Id: g.id })),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/scangroups/:Id',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      preValidation: trimPathParams,
      schema: {
        operationId: 'getScanGroup',
        summary: 'One scan group, with what its monitoring did not do',
        tags,
        params: ScanIdParams,
        response: { 200: ScanGroupSchema },
      },
      handler: async (request) => dto(request, await groups.get(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'PUT',
      url: '/scangroups/:Id',
      channels: ['latest'],
      access: { role: 'Manager' },
      preValidation: trimPathParams,
      schema: {
        operationId: 'updateScanGroup',
        summary: 'Change a scan group',
        description: `${BODY_HELP}\n\nThe scans the group holds stay; the new settings apply to the scans its monitoring adds from now on.`,
        tags,
        params: ScanIdParams,
        body: ScanGroupBody,
        response: { 200: ScanGroupSchema },
      },
      handler: async (request) =>
        dto(
          request,
          await groups.update(contextOf(request), request.params.Id, scanGroupInputOf(request.body)),
        ),
    });

    route(app, ctx, {
      method: 'DELETE',
      url: '/scangroups/:Id',
      channels: ['latest'],
      access: { role: 'Manager' },
      preValidation: trimPathParams,
      schema: {
        operationId: 'deleteScanGroup',
        summary: 'Delete a scan group with its system and web scans',
        description: 'A scan of the group with a run under way answers 409: stop it first. Findings stay.',
        tags,
        params: ScanIdParams,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
      handler: async (request, reply) => {
        await groups.remove(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    const scansOf = (kind: 'systemscans' | 'webscans', operationId: string) =>
      route(app, ctx, {
        method: 'GET',
        url: `/scangroups/:Id/${kind}`,
        channels: BOTH,
        access: { role: 'ReadOnly' },
        preValidation: trimPathParams,
        schema: {
          operationId,
          summary: `The ${kind === 'systemscans' ? 'system' : 'web'} scans of a scan group, as the original lists them`,
          description:
            '`Hostname` is the host the scan checks; `ScanLastCompleted` when its latest completed run ended.',
          tags,
          params: ScanIdParams,
          response: { 200: GroupScanList },
        },
        handler: async (request) => {
          const context = contextOf(request);
          const scans =
            kind === 'systemscans'
              ? await groups.systemScansOf(context, request.params.Id)
              : await groups.webScansOf(context, request.params.Id);
          return scans.map(toGroupScanDto);
        },
      });
    scansOf('systemscans', 'listScanGroupSystemScans');
    scansOf('webscans', 'listScanGroupWebScans');
  };
