import type { FastifyRequest } from 'fastify';
import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { IdParams } from '../../http/params.js';
import { principalOf } from '../../http/request-context.js';
import type { UserService } from '../users/service.js';
import { toInstallationOrganizationDto } from './presenters.js';
import {
  CreatedOrganizationSchema,
  CreateOrganizationSchema,
  InstallationOrganizationListSchema,
  InstallationOrganizationSchema,
  UpdateOrganizationSchema,
} from './schemas.js';
import type { InstallationActor, InstallationService } from './service.js';

// Installation Admins only, in a web session: API keys are bound to one organisation.
const ACCESS = { role: 'ReadOnly', via: ['session'], installation: true } as const;

export const installationRoutes =
  (installation: InstallationService, users: UserService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Installation'], channels: ['latest'] });
    const actorOf = async (request: FastifyRequest): Promise<InstallationActor> => {
      const principal = principalOf(request);
      const personId = principal.kind === 'session' ? principal.personId : '';
      return {
        kind: 'person',
        personId,
        email: (await users.person(personId)).email,
        currentOrganizationId: principal.organizationId,
        ipAddress: request.ip,
        requestId: request.id,
      };
    };

    group.get('/installation/organizations', {
      access: ACCESS,
      schema: {
        operationId: 'listInstallationOrganizations',
        summary: 'Every organisation of the installation',
        response: { 200: InstallationOrganizationListSchema },
      },
      handler: async () => ({ Items: (await installation.list()).map(toInstallationOrganizationDto) }),
    });

    group.post('/installation/organizations', {
      access: ACCESS,
      // A new Admin's generated password is shown once.
      idempotency: 'secret',
      schema: {
        operationId: 'createInstallationOrganization',
        summary: 'Create an organisation',
        description:
          'With its first Admin (AdminEmail, default: you). A person of another organisation joins with their own password; a new person gets a generated password, returned only in this answer. Names are unique, ignoring case (409).',
        body: CreateOrganizationSchema,
        response: { 201: CreatedOrganizationSchema },
      },
      handler: async (request, reply) => {
        const created = await installation.create(await actorOf(request), {
          name: request.body.Name,
          adminEmail: request.body.AdminEmail,
        });
        return reply.code(201).send({
          Organization: toInstallationOrganizationDto(created.organization),
          // A person always names an Admin (themselves by default).
          Admin: {
            Id: created.admin?.id ?? '',
            Email: created.admin?.email ?? '',
            NewPerson: created.newPerson,
          },
          AdminPassword: created.password,
        });
      },
    });

    group.patch('/installation/organizations/:Id', {
      access: ACCESS,
      schema: {
        operationId: 'updateInstallationOrganization',
        summary: 'Rename, deactivate or reactivate an organisation',
        description:
          'Deactivating ends its sessions and stops its API keys at once; its schedules wait and its data is kept. Not the organisation you are working in, nor the last active one (409).',
        params: IdParams,
        body: UpdateOrganizationSchema,
        response: { 200: InstallationOrganizationSchema },
      },
      handler: async (request) =>
        toInstallationOrganizationDto(
          await installation.update(await actorOf(request), request.params.Id, {
            name: request.body.Name,
            active: request.body.Active,
          }),
        ),
    });
  };
