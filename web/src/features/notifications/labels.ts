import type { DeliveryState, EndpointKind } from '../../api/notifications';

export const KIND_LABELS: Record<EndpointKind, string> = {
  Webhook: 'Webhook',
  Slack: 'Slack',
  Teams: 'Microsoft Teams',
  Email: 'Email',
};

export const DELIVERY_STATE_COLORS: Record<DeliveryState, string> = {
  Pending: 'gray',
  Delivering: 'blue',
  Succeeded: 'green',
  Failed: 'orange',
  Dead: 'red',
};

export const DELIVERY_STATES: readonly DeliveryState[] = [
  'Pending',
  'Delivering',
  'Succeeded',
  'Failed',
  'Dead',
];

export const URL_HINTS: Record<EndpointKind, string> = {
  Webhook: 'Your receiver’s https:// address. Each request carries the event and a Rampart-Signature header.',
  Slack: 'The incoming webhook URL Slack gave you (https://hooks.slack.com/services/…).',
  Teams: 'The incoming webhook URL of the Teams channel (or a Workflows webhook).',
  Email:
    'A mailto: URL of the addresses to write to, separated by commas (mailto:soc@example.com,lead@example.com).',
};
