import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { contextOf } from '../../http/request-context.js';
import type { JobQueue } from '../../jobs/queue.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { toJobDto } from './presenters.js';
import { JobIdParams, JobListQuery, JobListSchema, JobSchema } from './schemas.js';

const VISIBILITY =
  'An Admin sees the jobs of their organisation and the system jobs (OrganizationId null), never another organisation’s. A job’s payload is not shown: it may hold internals.';

export const jobRoutes =
  (jobs: JobQueue): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Jobs'];

    route(app, ctx, {
      method: 'GET',
      url: '/jobs',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'listJobs',
        summary: 'Background jobs, newest first',
        description: [
          'The durable job queue’s jobs, filtered by `Kind` and `State`, with their attempts, lease and last error.',
          VISIBILITY,
        ].join('\n\n'),
        tags,
        querystring: JobListQuery,
        response: { 200: JobListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await jobs.list({
          kind: q.Kind,
          state: q.State,
          pageSize: q.PageSize ?? 50,
          cursor: q.Cursor,
          organizationId: contextOf(request).organizationId,
        });
        return toPageDto(page, toJobDto);
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/jobs/:Id',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'getJob',
        summary: 'One background job: its state, attempts, lease and last error',
        description: `${VISIBILITY} Another organisation’s job answers 404, as an unknown one does.`,
        tags,
        params: JobIdParams,
        response: { 200: JobSchema },
      },
      handler: async (request) => {
        const id = request.params.Id;
        const job = await jobs.get(id, contextOf(request).organizationId);
        if (!job) throw AppError.of(Problems.NotFound, `No job ${id} in your organisation or the system’s.`);
        return toJobDto(job);
      },
    });
  };
