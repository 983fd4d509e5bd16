import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { contextOf, scanNodeOf } from '../../http/request-context.js';
import { toBatchAnswerDto, toClaimedRunDto, toScanRunDto } from './presenters.js';
import {
  AttemptParams,
  BatchAnswerSchema,
  BatchParams,
  BatchSchema,
  ClaimedRunSchema,
  ClaimSchema,
  FinishSchema,
  ScanRunIdParams,
  ScanRunListQuery,
  ScanRunListSchema,
  ScanRunSchema,
} from './schemas.js';
import type { ScanRunService } from './service.js';

const PROTOCOL =
  'Part of the scan node protocol that `rampart scan-node` speaks; a node calls it with its own key, never with user credentials.';

/** Scan runs: Admins follow and stop them; nodes claim them, report batches and finish them. */
export const scanRunRoutes =
  (scanRuns: ScanRunService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Scan runs'];

    route(app, ctx, {
      method: 'GET',
      url: '/scanruns',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listScanRuns',
        summary: 'Scan runs, newest first',
        description:
          'Filtered by the scan they belong to (`SourceId`), `Kind` and `State`, with progress and history.',
        tags,
        querystring: ScanRunListQuery,
        response: { 200: ScanRunListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await scanRuns.list(contextOf(request), {
          sourceId: q.SourceId,
          kind: q.Kind,
          state: q.State,
          pageSize: q.PageSize ?? 50,
          cursor: q.Cursor,
        });
        return toPageDto(page, toScanRunDto);
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/scanruns/:Id',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getScanRun',
        summary: 'One scan run: its state, progress and history',
        tags,
        params: ScanRunIdParams,
        response: { 200: ScanRunSchema },
      },
      handler: async (request) => toScanRunDto(await scanRuns.get(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/scanruns/:Id/stop',
      channels: BOTH,
      access: { role: 'Manager' },
      schema: {
        operationId: 'stopScanRun',
        summary: 'Stop a scan run',
        description:
          'A Queued run is Stopped at once; a Running one becomes Stopping, and its node stops within 5 seconds and reports it Stopped. A run that is stopping or has ended is answered as it is.',
        tags,
        params: ScanRunIdParams,
        response: { 200: ScanRunSchema },
      },
      handler: async (request) => toScanRunDto(await scanRuns.stop(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/scanruns/claim',
      channels: BOTH,
      access: { scanNode: true },
      schema: {
        operationId: 'claimScanRun',
        summary: 'A node claims the oldest run it may execute',
        description: [
          PROTOCOL,
          'A run of a kind the node serves, of its organisation, asked of it or of any node, while the node runs fewer than its capacity. The node holds it for 60 s, extended by each heartbeat and batch. 204 when there is none.',
        ].join('\n\n'),
        tags,
        body: ClaimSchema,
        response: { 200: ClaimedRunSchema, 204: { type: 'null', description: 'No run to claim now.' } },
      },
      handler: async (request, reply) => {
        const run = await scanRuns.claim(scanNodeOf(request), request.body.Kinds);
        if (!run) return reply.code(204).send();
        return toClaimedRunDto(run);
      },
    });

    route(app, ctx, {
      method: 'PUT',
      url: '/scanruns/:Id/attempts/:Attempt/batches/:Seq',
      channels: BOTH,
      access: { scanNode: true },
      schema: {
        operationId: 'putScanRunBatch',
        summary: 'A node sends a numbered batch of results',
        description: [
          PROTOCOL,
          'Idempotent: a batch sent again (same run, attempt and number) is answered `Applied: false` and changes nothing. Extends the lease. 409 when the node no longer holds that attempt (it was queued again or ended).',
        ].join('\n\n'),
        tags,
        params: BatchParams,
        body: BatchSchema,
        response: { 200: BatchAnswerSchema },
      },
      handler: async (request) => {
        const p = request.params;
        const b = request.body;
        const answer = await scanRuns.batch(scanNodeOf(request), {
          runId: p.Id,
          attempt: p.Attempt,
          seq: p.Seq,
          items: b.Items,
          progress: b.Progress && { done: b.Progress.Done, total: b.Progress.Total, found: b.Progress.Found },
        });
        return toBatchAnswerDto(answer);
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/scanruns/:Id/attempts/:Attempt/finish',
      channels: BOTH,
      access: { scanNode: true },
      schema: {
        operationId: 'finishScanRun',
        summary: 'A node ends its attempt of a run',
        description: [
          PROTOCOL,
          'Completed, Failed (with Error) or Stopped. Sending it again answers the same run; 409 when the node no longer holds that attempt.',
        ].join('\n\n'),
        tags,
        params: AttemptParams,
        body: FinishSchema,
        response: { 200: ScanRunSchema },
      },
      handler: async (request) => {
        const run = await scanRuns.finish(scanNodeOf(request), {
          runId: request.params.Id,
          attempt: request.params.Attempt,
          state: request.body.State,
          error: request.body.Error,
        });
        return toScanRunDto(run);
      },
    });
  };
