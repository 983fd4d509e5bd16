import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import { newUserFromBody, toUserDto, toUserSummaryDto, userChangesFromBody } from './presenters.js';
import {
  CreateUserSchema,
  GeneratedPasswordSchema,
  ListQuerySchema,
  ResetPasswordSchema,
  UpdateUserSchema,
  UserListSchema,
  UserSchema,
  UserSummarySchema,
} from './schemas.js';
import type { UserService } from './service.js';

export const userRoutes =
  (users: UserService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Users'] });
    // The original service answers a plain array here, and existing integrations read it so.
    group.get('/users', {
      channels: ['integration'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listUsersArray',
        summary: 'Users of your organisation (all, as an array)',
        response: { 200: { type: 'array', items: UserSummarySchema } as never },
      },
      handler: async (request) => (await users.listAll(contextOf(request))).map(toUserSummaryDto),
    });

    group.get('/users', {
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listUsers',
        summary: 'Users of your organisation (paged)',
        querystring: ListQuerySchema,
        response: { 200: UserListSchema },
      },
      handler: async (request) => {
        const page = await users.list(
          contextOf(request),
          request.query.PageSize ?? 100,
          request.query.Cursor,
        );
        return toPageDto(page, toUserDto);
      },
    });

    group.post('/users', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'createUser',
        summary: 'Create a user',
        body: CreateUserSchema,
        response: { 201: UserSchema },
      },
      handler: async (request, reply) => {
        const user = await users.create(contextOf(request), newUserFromBody(request.body));
        return reply.code(201).send(toUserDto(user));
      },
    });

    group.patch('/users/:Id', {
      channels: ['latest'],
      access: { role: 'Admin' },
      schema: {
        operationId: 'updateUser',
        summary: 'Change a user’s name, role or status',
        description:
          'Deactivating a user ends their sessions and stops their API keys at once. The organisation keeps at least one active Admin (409 otherwise).',
        params: IdParams,
        body: UpdateUserSchema,
        response: { 200: UserSchema },
      },
      handler: async (request) => {
        const changes = userChangesFromBody(request.body);
        return toUserDto(await users.update(contextOf(request), request.params.Id, changes));
      },
    });

    group.post('/users/:Id/password', {
      channels: ['latest'],
      access: { role: 'Admin' },
      // Its answer shows a secret once: a retry is told it was carried out, not shown the secret.
      idempotency: 'secret',
      schema: {
        operationId: 'resetUserPassword',
        summary: 'Reset a user’s password',
        description:
          'Sets a generated temporary password, returned only in this answer, and ends the user’s sessions.',
        params: IdParams,
        body: ResetPasswordSchema,
        response: { 200: GeneratedPasswordSchema },
      },
      handler: async (request) => ({
        Password: await users.resetPassword(contextOf(request), request.params.Id),
      }),
    });
  };
