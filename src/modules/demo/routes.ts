import { Type } from 'typebox';
import { loadDemo, removeDemo } from '../../demo/seed.js';
import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import type { Services } from '../../services.js';

/** Demo data on request (the web app offers it to a new organisation). */
export const demoRoutes =
  (services: Services): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Demo'], channels: ['latest'] });
    group.post('/demo', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'loadDemo',
        summary: 'Load demo data into your organisation',
        description:
          'A small realistic estate with real CVEs; assets tagged `demo`, tickets titled `[Demo] …`. Loading twice adds nothing new.',
        body: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Type.Object(
            { Assets: Type.Integer(), Findings: Type.Integer(), Tickets: Type.Integer() },
            { additionalProperties: false },
          ),
        },
      },
      handler: async (request) => {
        const r = await loadDemo(services, contextOf(request));
        return { Assets: r.assets, Findings: r.findings, Tickets: r.tickets };
      },
    });

    group.delete('/demo', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'removeDemo',
        summary: 'Remove the demo data from your organisation',
        response: {
          200: Type.Object(
            { Assets: Type.Integer(), Tickets: Type.Integer() },
            { additionalProperties: false },
          ),
        },
      },
      handler: async (request) => {
        const r = await removeDemo(services, contextOf(request));
        return { Assets: r.assets, Tickets: r.tickets };
      },
    });
  };
