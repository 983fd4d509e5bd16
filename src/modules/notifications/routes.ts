import { Type } from 'typebox';
import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import { Problems, problemTypeUri } from '../../problems/catalogue.js';
import { EVENT_CATALOGUE, EVENT_TYPES } from '../events/catalogue.js';
import {
  endpointChangesFromBody,
  newRuleFromBody,
  ruleChangesFromBody,
  toCreatedEndpointDto,
  toDeliveryDetailDto,
  toDeliveryDto,
  toDeliveryListItemDto,
  toEndpointDto,
  toRuleDto,
} from './presenters.js';
import {
  CreatedEndpointSchema,
  CreateEndpointSchema,
  CreateRuleSchema,
  DeliveryDetailSchema,
  DeliveryListQuery,
  DeliveryPageSchema,
  DeliverySchema,
  EndpointListSchema,
  EndpointSchema,
  RuleListSchema,
  RuleSchema,
  UpdateEndpointSchema,
  UpdateRuleSchema,
} from './schemas.js';
import type { NotificationService } from './service.js';

const ABOUT =
  'Rules send events (docs/events.md) to endpoints: webhooks (the CloudEvent, signed with HMAC-SHA256 in `Rampart-Signature`), Slack and Microsoft Teams incoming webhooks. Deliveries are retried with backoff and jitter, logged per endpoint, and an endpoint that keeps failing is disabled. docs/notifications.md says how to verify a signature.';

const refusedExample = {
  description:
    'The URL is refused: not http(s), or it reaches a link-local, metadata, multicast, reserved or (unless the server allows them) loopback or private address. `errors` names `/Url` and the rule.',
  content: {
    'application/problem+json': {
      schema: Type.Ref('Problem'),
      example: {
        type: problemTypeUri(Problems.NotificationDestinationRefused),
        title: Problems.NotificationDestinationRefused.title,
        status: 422,
        detail:
          '169.254.169.254 is in the link-local block 169.254.0.0/16 (with the cloud metadata address 169.254.169.254), which notifications never reach. (AlwaysRefused)',
        instance: '/api/latest/notifications/endpoints',
        errors: [
          {
            path: '/Url',
            message:
              'AlwaysRefused: 169.254.169.254 is in the link-local block 169.254.0.0/16 (with the cloud metadata address 169.254.169.254), which notifications never reach.',
          },
        ],
      },
    },
  },
};

const OptionsSchema = Type.Object(
  {
    Kinds: Type.Array(Type.String(), { description: 'The kinds of endpoint this server delivers to.' }),
    EventTypes: Type.Array(
      Type.Object(
        { Name: Type.String(), Description: Type.String(), Facets: Type.Array(Type.String()) },
        { additionalProperties: false },
      ),
      { description: 'What a rule may name, and the facets its filters can match on.' },
    ),
  },
  { additionalProperties: false },
);

export const notificationRoutes =
  (notifications: NotificationService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Notifications'], channels: ['latest'] });

    group.get('/notifications/options', {
      access: { role: 'Manager' },
      schema: {
        operationId: 'getNotificationOptions',
        summary: 'The kinds of endpoint and the event types rules may name',
        description: ABOUT,
        response: { 200: OptionsSchema },
      },
      handler: async () => ({
        Kinds: notifications.kinds,
        EventTypes: EVENT_TYPES.map((name) => ({
          Name: name,
          Description: EVENT_CATALOGUE[name].description,
          Facets: [...EVENT_CATALOGUE[name].facets],
        })),
      }),
    });

    // ---- endpoints: Admins only, since a chat webhook's URL is a credential.

    group.get('/notifications/endpoints', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'listNotificationEndpoints',
        summary: 'The organisation’s notification endpoints',
        description: ABOUT,
        response: { 200: EndpointListSchema },
      },
      handler: async (request) => {
        const items = await notifications.listEndpoints(contextOf(request));
        return { Items: items.map(toEndpointDto), NextCursor: null, TotalCount: items.length };
      },
    });

    group.post('/notifications/endpoints', {
      access: { role: 'Admin' },
      // Its answer shows a secret once: a retry is told it was carried out, not shown the secret.
      idempotency: 'secret',
      schema: {
        operationId: 'createNotificationEndpoint',
        summary: 'Add a notification endpoint',
        description: `${ABOUT}\n\nA webhook gets a signing secret, returned in this answer only. The URL is checked now (422 naming the rule) and again at every delivery. 409 when the name is taken.`,
        body: CreateEndpointSchema,
        response: { 201: CreatedEndpointSchema, 422: refusedExample },
      },
      handler: async (request, reply) => {
        const { endpoint, secret } = await notifications.createEndpoint(contextOf(request), {
          name: request.body.Name,
          kind: request.body.Kind,
          url: request.body.Url,
          ...(request.body.RatePerMinute !== undefined ? { ratePerMinute: request.body.RatePerMinute } : {}),
          ...(request.body.Enabled !== undefined ? { enabled: request.body.Enabled } : {}),
        });
        return reply.code(201).send(toCreatedEndpointDto(endpoint, secret));
      },
    });

    group.get('/notifications/endpoints/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'getNotificationEndpoint',
        summary: 'One notification endpoint (never its secret)',
        params: IdParams,
        response: { 200: EndpointSchema },
      },
      handler: async (request) =>
        toEndpointDto(await notifications.getEndpoint(contextOf(request), request.params.Id)),
    });

    group.patch('/notifications/endpoints/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'updateNotificationEndpoint',
        summary: 'Rename, re-point, limit, disable or enable an endpoint',
        description:
          'A new URL is checked like a new endpoint’s (422 naming the rule). `Enabled: true` enables a disabled endpoint with its failures forgotten.',
        params: IdParams,
        body: UpdateEndpointSchema,
        response: { 200: EndpointSchema, 422: refusedExample },
      },
      handler: async (request) =>
        toEndpointDto(
          await notifications.updateEndpoint(
            contextOf(request),
            request.params.Id,
            endpointChangesFromBody(request.body),
          ),
        ),
    });

    group.post('/notifications/endpoints/:Id/enable', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'enableNotificationEndpoint',
        summary: 'Enable an endpoint again',
        description:
          'Its failure count is cleared. Deliveries given up while it was disabled stay Dead: redeliver those you want.',
        params: IdParams,
        response: { 200: EndpointSchema },
      },
      handler: async (request) =>
        toEndpointDto(await notifications.enableEndpoint(contextOf(request), request.params.Id)),
    });

    group.delete('/notifications/endpoints/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'deleteNotificationEndpoint',
        summary: 'Remove an endpoint and its delivery log',
        description: '409 while a rule sends to it: the answer names the rules.',
        params: IdParams,
        response: { 204: noContent('Removed.') },
      },
      handler: async (request, reply) => {
        await notifications.deleteEndpoint(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    group.post('/notifications/endpoints/:Id/test', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'testNotificationEndpoint',
        summary: 'Send a test event to an endpoint',
        description:
          'A `rampart.notification.test` CloudEvent, sent at once through the usual delivery and its log. 409 when the endpoint is disabled.',
        params: IdParams,
        response: { 202: DeliverySchema },
      },
      handler: async (request, reply) => {
        const delivery = await notifications.testEndpoint(contextOf(request), request.params.Id);
        return reply.code(202).send(toDeliveryDto(delivery));
      },
    });

    group.get('/notifications/endpoints/:Id/deliveries', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'listNotificationDeliveries',
        summary: 'An endpoint’s delivery log, newest first',
        description:
          'Each delivery with its attempts: when, the receiver’s status code, how long it took, the error.',
        params: IdParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryPageSchema },
      },
      handler: async (request) => {
        const page = await notifications.listDeliveries(contextOf(request), request.params.Id, {
          pageSize: request.query.PageSize ?? 50,
          ...(request.query.Cursor !== undefined ? { cursor: request.query.Cursor } : {}),
          ...(request.query.State !== undefined ? { state: request.query.State } : {}),
        });
        return toPageDto(page, toDeliveryListItemDto);
      },
    });

    group.get('/notifications/deliveries/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'getNotificationDelivery',
        summary: 'One delivery, with its attempts and the event it sends',
        params: IdParams,
        response: { 200: DeliveryDetailSchema },
      },
      handler: async (request) =>
        toDeliveryDetailDto(await notifications.getDelivery(contextOf(request), request.params.Id)),
    });

    group.post('/notifications/deliveries/:Id/redeliver', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'redeliverNotification',
        summary: 'Send a delivery again',
        description:
          'A Succeeded or Dead delivery is sent again from its first attempt (the same event id: receivers that dedupe by it see it once); a Failed one is sent now instead of at its retry. 409 while it is Pending or being delivered, or when the endpoint is disabled.',
        params: IdParams,
        response: { 202: DeliverySchema },
      },
      handler: async (request, reply) => {
        const delivery = await notifications.redeliver(contextOf(request), request.params.Id);
        return reply.code(202).send(toDeliveryDto(delivery));
      },
    });

    // ---- rules: Managers read them, Admins change them.

    group.get('/notifications/rules', {
      access: { role: 'Manager' },
      schema: {
        operationId: 'listNotificationRules',
        summary: 'The organisation’s notification rules',
        description: ABOUT,
        response: { 200: RuleListSchema },
      },
      handler: async (request) => {
        const items = await notifications.listRules(contextOf(request));
        return { Items: items.map(toRuleDto), NextCursor: null, TotalCount: items.length };
      },
    });

    group.post('/notifications/rules', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'createNotificationRule',
        summary: 'Add a notification rule',
        description:
          'An event goes to the rule’s endpoints when its type is one of `EventTypes` and it passes every filter set. An event that does not carry the facet a filter asks about (a severity, for a scan event) does not pass that filter. 400 naming each unknown event type or endpoint.',
        body: CreateRuleSchema,
        response: { 201: RuleSchema },
      },
      handler: async (request, reply) => {
        const rule = await notifications.createRule(contextOf(request), newRuleFromBody(request.body));
        return reply.code(201).send(toRuleDto(rule));
      },
    });

    group.get('/notifications/rules/:Id', {
      access: { role: 'Manager' },
      schema: {
        operationId: 'getNotificationRule',
        summary: 'One notification rule',
        params: IdParams,
        response: { 200: RuleSchema },
      },
      handler: async (request) =>
        toRuleDto(await notifications.getRule(contextOf(request), request.params.Id)),
    });

    group.patch('/notifications/rules/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'updateNotificationRule',
        summary: 'Change a notification rule',
        params: IdParams,
        body: UpdateRuleSchema,
        response: { 200: RuleSchema },
      },
      handler: async (request) =>
        toRuleDto(
          await notifications.updateRule(
            contextOf(request),
            request.params.Id,
            ruleChangesFromBody(request.body),
          ),
        ),
    });

    group.delete('/notifications/rules/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'deleteNotificationRule',
        summary: 'Remove a notification rule',
        params: IdParams,
        response: { 204: noContent('Removed.') },
      },
      handler: async (request, reply) => {
        await notifications.deleteRule(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });
  };
