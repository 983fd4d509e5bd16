import { type ChannelRoutes, route } from '../../http/channels.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import { toVerifyResultDto } from './presenters.js';
import { VerifyBody, VerifyResultSchema } from './schemas.js';
import type { VerifyService } from './service.js';

const HOW =
  'Each Rampart scan that found some of the findings runs again on their addresses and ports (or URLs) only, and only they may become Fixed by that run. Findings other tools reported, and scans that cannot run now (a run under way: 409 in words), are listed in `Skipped` with the reason.';

export const verifyRoutes =
  (verify: VerifyService): ChannelRoutes =>
  (app, ctx) => {
    route(app, ctx, {
      method: 'POST',
      url: '/findings/verify',
      channels: ['latest'],
      access: { role: 'Analyst' },
      schema: {
        operationId: 'verifyFindings',
        summary: 'Check findings again with the scans that found them',
        description: HOW,
        tags: ['Findings'],
        body: VerifyBody,
        response: { 202: VerifyResultSchema },
      },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(toVerifyResultDto(await verify.verify(contextOf(request), request.body.FindingIds))),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/tickets/:Id/verify',
      channels: ['latest'],
      access: { role: 'Analyst' },
      schema: {
        operationId: 'verifyTicket',
        summary: 'Check a ticket’s findings again with the scans that found them',
        description: `${HOW} A ticket whose findings all end Fixed resolves itself.`,
        tags: ['Tickets'],
        params: IdParams,
        response: { 202: VerifyResultSchema },
      },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(toVerifyResultDto(await verify.verifyTicket(contextOf(request), request.params.Id))),
    });
  };
