import type { DatabaseKind } from '../../db/database.js';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import type { Clock } from '../../lib/clock.js';
import { StatusSchema } from './schemas.js';

export interface StatusDeps {
  version: string;
  databaseKind: DatabaseKind;
  clock: Clock;
  baseUrl: string;
}

// Answers without touching the database, so it doubles as a liveness probe.
export const statusRoutes =
  (deps: StatusDeps): ChannelRoutes =>
  (app, ctx) => {
    route(app, ctx, {
      method: 'GET',
      url: '/status',
      channels: BOTH,
      access: { public: true },
      schema: {
        operationId: 'getStatus',
        summary: 'Service status',
        description: 'The service name, version, time and kind of database. Contains no secrets.',
        tags: ['Service'],
        response: { 200: StatusSchema },
      },
      handler: async () => ({
        Service: 'Rampart',
        Version: deps.version,
        Time: deps.clock().toISOString(),
        Database: deps.databaseKind,
        Channel: ctx.channel,
        BaseUrl: deps.baseUrl,
      }),
    });
  };
