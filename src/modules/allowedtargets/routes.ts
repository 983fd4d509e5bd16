import { Type } from 'typebox';
import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import { Problems, problemTypeUri } from '../../problems/catalogue.js';
import { toAllowedTargetDto, toTargetVerdictDto } from './presenters.js';
import {
  AllowedTargetListQuery,
  AllowedTargetListSchema,
  AllowedTargetSchema,
  CheckTargetsResultSchema,
  CheckTargetsSchema,
  CreateAllowedTargetSchema,
} from './schemas.js';
import type { AllowedTargetsService } from './service.js';

const POLICY = [
  'Each organisation keeps the ranges and host names its scans may reach, and exclusions carved out of them. **Empty by default: nothing may be scanned until an Admin allows a range.**',
  'Always refused, whatever the entries say: multicast (224.0.0.0/4, ff00::/8), broadcast 255.255.255.255, link-local (169.254.0.0/16 with the cloud metadata address 169.254.169.254, fe80::/10), reserved 240.0.0.0/4, unspecified (0.0.0.0/8, ::); IPv4-mapped IPv6 forms are judged as their IPv4 address. Loopback (127.0.0.0/8, ::1, and names that mean it: `localhost`, names under `.localhost`, `ip6-localhost`, …) only when the server sets `RAMPART_SCAN_ALLOW_LOOPBACK=true`. One target holds at most 65,536 addresses (a /16).',
].join('\n\n');

/** A documented problem response of a status the shared ones do not cover. */
const problem = (
  status: number,
  description: string,
  instance: string,
  detail: string,
  extra: object = {},
) => ({
  description,
  content: {
    'application/problem+json': {
      schema: Type.Ref('Problem'),
      example: {
        type: problemTypeUri(status === 409 ? Problems.Conflict : Problems.ScanTargetRefused),
        title: status === 409 ? Problems.Conflict.title : Problems.ScanTargetRefused.title,
        status,
        detail,
        instance,
        ...extra,
      },
    },
  },
});

export const allowedTargetRoutes =
  (allowedTargets: AllowedTargetsService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Allowed scan targets'] });
    const base = `/api/${ctx.channel}/allowedtargets`;

    group.get('/allowedtargets', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAllowedTargets',
        summary: 'The organisation’s allowed scan targets and exclusions, newest first',
        description: POLICY,
        querystring: AllowedTargetListQuery,
        response: { 200: AllowedTargetListSchema },
      },
      handler: async (request) => {
        const page = await allowedTargets.list(contextOf(request), {
          pageSize: request.query.PageSize ?? 100,
          cursor: request.query.Cursor,
        });
        return toPageDto(page, toAllowedTargetDto);
      },
    });

    group.post('/allowedtargets', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'createAllowedTarget',
        summary: 'Allow a scan target, or exclude one',
        description: `${POLICY}\n\nThe target is stored in its canonical form (\`10.0.0.0-10.0.0.255\` becomes \`10.0.0.0/24\`). 422 \`scan-target-refused\` naming \`/Target\` when it is malformed, larger than a /16 or always refused; 409 when the organisation already has it.`,
        body: CreateAllowedTargetSchema,
        response: {
          201: AllowedTargetSchema,
          409: problem(
            409,
            'The organisation already has this entry.',
            base,
            '198.18.0.0/24 is already allowed for scans.',
          ),
          422: problem(
            422,
            'The target is malformed, larger than a /16, or always refused: `errors` names `/Target` and the rule.',
            base,
            '169.254.0.0/16 overlaps the link-local block 169.254.0.0/16 (with the cloud metadata address 169.254.169.254), which is never scanned. (AlwaysRefused)',
            {
              errors: [
                {
                  path: '/Target',
                  message:
                    'AlwaysRefused: 169.254.0.0/16 overlaps the link-local block 169.254.0.0/16 (with the cloud metadata address 169.254.169.254), which is never scanned.',
                },
              ],
            },
          ),
        },
      },
      handler: async (request, reply) => {
        const created = await allowedTargets.create(contextOf(request), {
          kind: request.body.Kind,
          target: request.body.Target,
          description: request.body.Description,
        });
        return reply.code(201).send(toAllowedTargetDto(created));
      },
    });

    group.delete('/allowedtargets/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'deleteAllowedTarget',
        summary: 'Remove an allowed or excluded scan target',
        description:
          'Scans saved or started from now on are checked without it; a running scan keeps the policy it started with.',
        params: IdParams,
        response: { 204: noContent('Removed.') },
      },
      handler: async (request, reply) => {
        await allowedTargets.remove(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    group.post('/allowedtargets/check', {
      access: { role: 'ReadOnly' },
      idempotency: false,
      schema: {
        operationId: 'checkScanTargets',
        summary: 'Check scan targets against the organisation’s allowed targets',
        description: `${POLICY}\n\nWhat a scan would be refused for, target by target, with the addresses it would scan: the new-scan page validates as you type. Nothing is stored. A malformed scan-wide exclusion answers 422 \`scan-target-refused\` naming \`/Exclusions/<n>\`.`,
        body: CheckTargetsSchema,
        response: {
          200: CheckTargetsResultSchema,
          422: problem(
            422,
            'A scan-wide exclusion is malformed: `errors` names it.',
            `${base}/check`,
            '"10.0.0." is not a valid address. (Syntax)',
            { errors: [{ path: '/Exclusions/0', message: 'Syntax: "10.0.0." is not a valid address.' }] },
          ),
        },
      },
      handler: async (request) => {
        const result = await allowedTargets.check(
          contextOf(request),
          request.body.Targets.map((t) => ({
            range: t.Range,
            name: t.Name ?? null,
            exclude: t.Exclude ?? [],
          })),
          request.body.Exclusions ?? [],
        );
        return { Items: result.items.map(toTargetVerdictDto), AddressCount: result.addressCount };
      },
    });
  };
