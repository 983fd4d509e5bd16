import type { NotificationEvent } from './types.js';

// What a person reads of an event: one sentence and a link into the web app, for Slack and
// Teams (and the email channel's subject lines). Webhooks get the CloudEvent itself.

export interface EventSummary {
  /** A short heading: "Finding created". */
  title: string;
  /** One sentence: "Critical finding “OpenSSL …” on web-01 was created." */
  text: string;
  /** The page of the web app about it, or null. */
  link: string | null;
}

type Data = Record<string, unknown>;
const obj = (value: unknown): Data => (value && typeof value === 'object' ? (value as Data) : {});
const str = (value: unknown, fallback = ''): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fallback;

/** Text from an event's data is shown in chat apps: control characters out, and a bounded length. */
function clean(text: string, max = 300): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const plain = text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

const SCAN_PAGES: Record<string, string> = {
  Discovery: 'discovery',
  System: 'system-scans',
  Web: 'web-scans',
};

/** The heading, sentence and link of an event; `baseUrl` is the web app's (RAMPART_BASE_URL). */
export function summarize(event: NotificationEvent, baseUrl: string): EventSummary {
  const type = event.type.replace(/^rampart\./, '');
  const data = obj(event.data);
  const page = (path: string) => `${baseUrl}/${path}`;
  const finding = obj(data.Finding);
  const findingText = () => {
    const asset = str(obj(finding.Asset).Name);
    return `${str(finding.Severity, 'A')} finding “${clean(str(finding.Title), 150)}”${asset ? ` on ${clean(asset, 100)}` : ''}`;
  };
  const findingLink = finding.Id ? page(`findings/${str(finding.Id)}`) : null;
  const scan = obj(data.Scan);
  const scanText = () => `${str(scan.Kind)} scan “${clean(str(scan.Name), 150)}”`.trim();
  const scanLink =
    scan.Id && SCAN_PAGES[str(scan.Kind)] ? page(`${SCAN_PAGES[str(scan.Kind)]}/${str(scan.Id)}`) : null;
  const imported = obj(data.Import);
  const importText = () => {
    const name = str(imported.FileName) || str(imported.ScopeName) || str(imported.Format);
    return name ? `Import of ${clean(name, 150)}` : 'An import';
  };
  const importLink = imported.Id ? page(`imports/${str(imported.Id)}`) : null;
  const ticket = obj(data.Ticket);
  const ticketText = () => `Ticket #${str(ticket.Number, '?')} “${clean(str(ticket.Title), 150)}”`;
  const ticketLink = ticket.Id ? page(`tickets/${str(ticket.Id)}`) : null;
  const apiKey = obj(data.ApiKey);
  const user = obj(data.User);
  const endpoint = obj(data.Endpoint);

  const summaries: Record<string, () => EventSummary> = {
    'finding.created': () => ({
      title: 'Finding created',
      text: `${findingText()} was found.`,
      link: findingLink,
    }),
    'finding.state_changed': () => ({
      title: 'Finding state changed',
      text: `${findingText()} changed from ${str(data.FromState, 'none')} to ${str(data.ToState)}.`,
      link: findingLink,
    }),
    'finding.reopened': () => ({
      title: 'Finding reopened',
      text: `${findingText()} came back.`,
      link: findingLink,
    }),
    'finding.sla_breached': () => ({
      title: 'Finding past its SLA',
      text: `${findingText()} was due ${str(data.DueAt).slice(0, 10)} and is still open.`,
      link: findingLink,
    }),
    'finding.sla_due_soon': () => ({
      title: 'Finding due soon',
      text: `${findingText()} is due ${str(data.DueAt).slice(0, 10)}.`,
      link: findingLink,
    }),
    'finding.kev_found': () => ({
      title: 'Known exploited vulnerability',
      text: `${findingText()} is in the CISA KEV catalogue.`,
      link: findingLink,
    }),
    'scan.started': () => ({ title: 'Scan started', text: `${scanText()} started.`, link: scanLink }),
    'scan.completed': () => ({ title: 'Scan completed', text: `${scanText()} completed.`, link: scanLink }),
    'scan.failed': () => ({
      title: 'Scan failed',
      text: `${scanText()} failed${data.Error ? `: ${clean(str(data.Error), 200)}` : '.'}`,
      link: scanLink,
    }),
    'scan.new_hosts_found': () => ({
      title: 'New hosts found',
      text: `${scanText()} found ${str(data.Count, 'new')} new host${data.Count === 1 ? '' : 's'}.`,
      link: scanLink,
    }),
    'scan.new_services_found': () => ({
      title: 'New services found',
      text: `${scanText()} found ${str(data.Count, 'new')} new service${data.Count === 1 ? '' : 's'}.`,
      link: scanLink,
    }),
    'import.completed': () => ({
      title: 'Import completed',
      text: `${importText()} completed.`,
      link: importLink,
    }),
    'import.failed': () => ({
      title: 'Import failed',
      text: `${importText()} failed${data.Error ? `: ${clean(str(data.Error), 200)}` : '.'}`,
      link: importLink,
    }),
    'import.needs_attention': () => ({
      title: 'Import needs attention',
      text: `${importText()} completed with warnings.`,
      link: importLink,
    }),
    'ticket.created': () => ({
      title: 'Ticket created',
      text: `${ticketText()} was created.`,
      link: ticketLink,
    }),
    'ticket.assigned': () => ({
      title: 'Ticket assigned',
      text: `${ticketText()} was assigned.`,
      link: ticketLink,
    }),
    'ticket.changed': () => ({ title: 'Ticket changed', text: `${ticketText()} changed.`, link: ticketLink }),
    'ticket.resolved_by_verify': () => ({
      title: 'Ticket resolved by verification',
      text: `${ticketText()} was resolved: verification found its findings fixed.`,
      link: ticketLink,
    }),
    'risk_acceptance.expiring': () => ({
      title: 'Risk acceptance expiring',
      text: `The risk acceptance of ${findingText()} ends ${str(data.AcceptedUntil).slice(0, 10)}.`,
      link: findingLink,
    }),
    'apikey.created': () => ({
      title: 'API key created',
      text: `API key “${clean(str(apiKey.Name), 100)}” (${str(apiKey.AccessKey)}) was created.`,
      link: page('profile'),
    }),
    'apikey.revoked': () => ({
      title: 'API key revoked',
      text: `API key “${clean(str(apiKey.Name), 100)}” (${str(apiKey.AccessKey)}) was revoked.`,
      link: page('profile'),
    }),
    'user.role_changed': () => ({
      title: 'User role changed',
      text: `${clean(str(user.Name) || str(user.Email), 100)} is now ${str(data.ToRole)} (was ${str(data.FromRole)}).`,
      link: page('users'),
    }),
    'notification.endpoint_disabled': () => ({
      title: 'Notification endpoint disabled',
      text: `Notification endpoint “${clean(str(endpoint.Name), 100)}” was disabled: ${clean(str(data.Reason), 300)}`,
      link: page('notifications'),
    }),
    'notification.test': () => ({
      title: 'Test notification',
      text: `Rampart can reach notification endpoint “${clean(str(endpoint.Name), 100)}”.`,
      link: page('notifications'),
    }),
  };
  return summaries[type]?.() ?? { title: type, text: `Rampart event ${type}.`, link: null };
}

/** A Slack incoming webhook's message: text for notifications, blocks for the message itself. */
export function slackMessage(events: NotificationEvent[], baseUrl: string): object {
  const summaries = events.map((e) => summarize(e, baseUrl));
  const escapeText = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    text: summaries.map((s) => s.text).join('\n'),
    blocks: summaries.flatMap((s) => [
      { type: 'header', text: { type: 'plain_text', text: s.title.slice(0, 150), emoji: false } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: escapeText(s.text) + (s.link ? `\n<${s.link}|Open in Rampart>` : '') },
      },
    ]),
  };
}

/** A Microsoft Teams incoming webhook's message: an Adaptive Card in a message attachment. */
export function teamsMessage(events: NotificationEvent[], baseUrl: string): object {
  const summaries = events.map((e) => summarize(e, baseUrl));
  const firstLink = summaries.find((s) => s.link)?.link;
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: summaries.flatMap((s) => [
            { type: 'TextBlock', text: s.title, weight: 'Bolder', size: 'Medium', wrap: true },
            { type: 'TextBlock', text: s.text, wrap: true },
          ]),
          ...(firstLink
            ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in Rampart', url: firstLink }] }
            : {}),
        },
      },
    ],
  };
}
