import { button, escapeHtml, factsTable, layout, subjectLine } from './html.js';

// The email of each event type: a subject, a sentence, the key facts and a link to the web app,
// as HTML (inline styles, every value escaped) and as plain text. Pure: an event (its CloudEvents
// envelope) and the web app's address in, the message out; no module, no database.

/** What a template reads of an event: its CloudEvents envelope. */
export interface MailEvent {
  id: string;
  type: string;
  time?: string;
  subject?: string | null;
  data?: unknown;
}

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

type Data = Record<string, unknown>;

/** The event type without the `rampart.` prefix of the CloudEvents `type`. */
export function eventName(type: string): string {
  return type.startsWith('rampart.') ? type.slice('rampart.'.length) : type;
}

/** Each event type's title, as subjects, digests and the preferences page name it. */
export const EVENT_TITLES: Record<string, string> = {
  'finding.created': 'New finding',
  'finding.state_changed': 'Finding state changed',
  'finding.reopened': 'Finding reopened',
  'finding.sla_breached': 'Finding past its SLA',
  'finding.sla_due_soon': 'Finding due soon',
  'finding.kev_found': 'Known exploited vulnerability found',
  'scan.started': 'Scan started',
  'scan.completed': 'Scan completed',
  'scan.failed': 'Scan failed',
  'scan.new_hosts_found': 'New hosts found',
  'scan.new_services_found': 'New services found',
  'import.completed': 'Import completed',
  'import.failed': 'Import failed',
  'import.needs_attention': 'Import needs attention',
  'ticket.created': 'Ticket created',
  'ticket.assigned': 'Ticket assigned',
  'ticket.changed': 'Ticket changed',
  'ticket.resolved_by_verify': 'Ticket resolved by Verify',
  'risk_acceptance.expiring': 'Risk acceptance expiring',
  'apikey.created': 'API key created',
  'apikey.revoked': 'API key revoked',
  'user.role_changed': 'User role changed',
  'notification.endpoint_disabled': 'Notification endpoint disabled',
};

/** Titles of what is not in the event catalogue: an endpoint's test. */
const OTHER_TITLES: Record<string, string> = { 'notification.test': 'Test notification' };

export function titleOf(type: string): string {
  const name = eventName(type);
  return EVENT_TITLES[name] ?? OTHER_TITLES[name] ?? name;
}

const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object of the event's data named `key` (e.g. Scan, Finding), or an empty one. */
function part(data: unknown, key: string): Data {
  const value = isObject(data) ? data[key] : undefined;
  return isObject(value) ? value : {};
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined;

/** What the event is about, by name: the scan, the finding, the import… */
function nameOf(data: unknown): string | undefined {
  for (const key of ['Scan', 'Finding', 'Import', 'Ticket', 'ApiKey', 'User', 'Endpoint', 'RiskAcceptance']) {
    const p = part(data, key);
    const name = str(p.Name) ?? str(p.Title) ?? str(p.FileName) ?? str(p.Email);
    if (name) return name;
  }
  return undefined;
}

const SCAN_PATHS: Record<string, string> = {
  Discovery: 'discovery',
  System: 'system-scans',
  Web: 'web-scans',
};

/** Where in the web app the event's subject is shown. */
export function linkOf(event: MailEvent, baseUrl: string): string {
  const name = eventName(event.type);
  const data = event.data;
  const id = (key: string) => str(part(data, key).Id);
  const at = (path: string) => `${baseUrl}/${path}`;
  const [family] = name.split('.');
  switch (family) {
    case 'finding':
    case 'risk_acceptance': {
      const finding = id('Finding');
      return finding ? at(`findings/${encodeURIComponent(finding)}`) : at('findings');
    }
    case 'scan': {
      const scan = part(data, 'Scan');
      const path = SCAN_PATHS[str(scan.Kind) ?? ''] ?? 'discovery';
      return str(scan.Id) ? at(`${path}/${encodeURIComponent(str(scan.Id)!)}`) : at(path);
    }
    case 'import':
      return id('Import') ? at(`imports/${encodeURIComponent(id('Import')!)}`) : at('imports');
    case 'ticket':
      return id('Ticket') ? at(`tickets/${encodeURIComponent(id('Ticket')!)}`) : at('tickets');
    case 'apikey':
      return at('profile#api-keys');
    case 'user':
      return at('users');
    case 'notification':
      return at('notifications');
    default:
      return at('');
  }
}

/** One sentence saying what happened. */
export function sentenceOf(event: MailEvent): string {
  const name = eventName(event.type);
  const data = event.data;
  const subject = nameOf(data);
  const quoted = subject ? `“${subject}”` : '';
  switch (name) {
    case 'scan.started':
      return `The ${kindWord(data)}scan ${quoted} started.`.replace('  ', ' ');
    case 'scan.completed':
      return `The ${kindWord(data)}scan ${quoted} completed.`.replace('  ', ' ');
    case 'scan.failed':
      return `The ${kindWord(data)}scan ${quoted} failed${reason(data)}.`.replace('  ', ' ');
    case 'scan.new_hosts_found':
      return `The scan ${quoted} found new hosts.`.replace('  ', ' ');
    case 'scan.new_services_found':
      return `The ${kindWord(data)}scan ${quoted} found services not seen before on its hosts.`.replace(
        '  ',
        ' ',
      );
    case 'import.completed':
      return `The import ${quoted} completed.`.replace('  ', ' ');
    case 'import.failed':
      return `The import ${quoted} failed${reason(data)}.`.replace('  ', ' ');
    case 'import.needs_attention':
      return `The import ${quoted} needs your attention.`.replace('  ', ' ');
    case 'finding.created':
      return `New ${findingWords(data)}.`;
    case 'finding.kev_found':
      return `A known exploited vulnerability${vulnKey(data)} was found: ${findingWords(data)}.`;
    case 'finding.reopened':
      return `The ${findingWords(data)} came back and was reopened.`;
    case 'finding.state_changed':
      return `The ${findingWords(data)} is now ${str(part(data, 'Finding').State) ?? 'in another state'}.`;
    case 'finding.sla_breached':
      return `The ${findingWords(data)} is past its SLA${dueWords(data, 'since')}.`;
    case 'finding.sla_due_soon':
      return `The ${findingWords(data)} is due soon${dueWords(data, 'on')}.`;
    case 'risk_acceptance.expiring':
      return `The risk acceptance of the ${findingWords(data)} ends${str(isObject(data) ? data.AcceptedUntil : undefined) ? ` on ${str((data as Data).AcceptedUntil)}` : ' soon'}.`;
    case 'ticket.created':
    case 'ticket.assigned':
    case 'ticket.changed':
    case 'ticket.resolved_by_verify': {
      const ticket = part(data, 'Ticket');
      const label =
        `${str(ticket.Number) ? `#${str(ticket.Number)} ` : ''}${quote(str(ticket.Title))}`.trim();
      const what = {
        'ticket.created': 'was created',
        'ticket.assigned': 'was assigned',
        'ticket.changed': 'changed',
        'ticket.resolved_by_verify': 'was resolved: Verify found its findings fixed',
      }[name];
      return `The ticket ${label} ${what}.`;
    }
    case 'apikey.created':
    case 'apikey.revoked':
      return `The API key ${quoted} was ${name === 'apikey.created' ? 'created' : 'revoked'}.`.replace(
        '  ',
        ' ',
      );
    case 'user.role_changed': {
      const d = isObject(data) ? data : {};
      return `The role of ${quoted} changed from ${str(d.FromRole) ?? '?'} to ${str(d.ToRole) ?? '?'}.`.replace(
        '  ',
        ' ',
      );
    }
    case 'notification.test':
      return str(isObject(data) ? data.Message : undefined) ?? 'A test notification sent from Rampart.';
    case 'notification.endpoint_disabled':
      return `The notification endpoint ${quoted} was disabled after repeated failed deliveries. Check it and enable it again.`.replace(
        '  ',
        ' ',
      );
    default:
      return subject ? `${titleOf(event.type)}: ${subject}.` : `${titleOf(event.type)}.`;
  }
}

const quote = (text: string | undefined) => (text ? `“${text}”` : '');

/** "High finding “Title” on web-01", as far as the event says. */
function findingWords(data: unknown): string {
  const f = part(data, 'Finding');
  const severity = str(f.Severity);
  const asset = str(part(f, 'Asset').Name);
  return `${severity ? `${severity} ` : ''}finding ${quote(str(f.Title))}${asset ? ` on ${asset}` : ''}`
    .replace(/\s+/g, ' ')
    .trim();
}

function vulnKey(data: unknown): string {
  const key = str(part(part(data, 'Finding'), 'Vulnerability').Key);
  return key ? ` (${key})` : '';
}

function dueWords(data: unknown, word: string): string {
  const due = str(part(data, 'Finding').DueAt) ?? str(isObject(data) ? data.DueAt : undefined);
  return due ? ` (due ${word === 'since' ? '' : 'on '}${due})`.replace('due  ', 'due ') : '';
}

function kindWord(data: unknown): string {
  const kind = str(part(data, 'Scan').Kind);
  return kind ? `${kind.toLowerCase()} ` : '';
}

function reason(data: unknown): string {
  const why =
    str(part(data, 'Run').Error) ??
    str(part(data, 'Import').Error) ??
    str(isObject(data) ? data.Error : undefined);
  // The sentence ends with its own full stop.
  return why ? `: ${why.replace(/[.\s]+$/, '')}` : '';
}

/** The key facts of the event: the scalar fields of its data's objects, ids left out, bounded. */
export function factsOf(event: MailEvent): [string, string][] {
  const facts: [string, string][] = [];
  const data = isObject(event.data) ? event.data : {};
  for (const [key, value] of Object.entries(data)) {
    const fields = isObject(value) ? Object.entries(value) : [[undefined, value] as const];
    for (const [field, v] of fields) {
      if (facts.length >= 12) break;
      if (field !== undefined && /Id$/.test(field)) continue;
      if (field === undefined && /Id$/.test(key)) continue;
      const nested = isObject(v) ? (str(v.Name) ?? str(v.Key) ?? str(v.Title)) : undefined;
      const text =
        nested !== undefined
          ? nested
          : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
            ? String(v)
            : Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')
              ? v.join(', ')
              : undefined;
      if (text === undefined || text === '') continue;
      const label =
        field === undefined ? key : field === 'Name' || field === 'Title' ? key : `${key} ${field}`;
      facts.push([spaced(label), text.length > 300 ? `${text.slice(0, 299)}…` : text]);
    }
  }
  if (event.time) facts.push(['Time', event.time]);
  return facts;
}

/** PascalCase as words: "Run State" → "Run state". */
function spaced(label: string): string {
  const words = label.replace(/([a-z])([A-Z])/g, '$1 $2').split(' ');
  return words.map((w, i) => (i === 0 ? w : /^[A-Z]{2,}/.test(w) ? w : w.toLowerCase())).join(' ');
}

const FOOTER_TEXT =
  'You receive this email because of your notification preferences in Rampart (My profile) or a notification rule of your organisation.';

function footerHtml(baseUrl: string): string {
  return `${escapeHtml(FOOTER_TEXT)} <a href="${escapeHtml(`${baseUrl}/profile#notifications`)}" style="color:#1c7ed6;">Change what you receive</a>.`;
}

function textFacts(facts: [string, string][]): string {
  return facts.map(([k, v]) => `${k}: ${v}`).join('\n');
}

/** The email of one event. */
export function renderEvent(event: MailEvent, baseUrl: string): MailContent {
  const title = titleOf(event.type);
  const sentence = sentenceOf(event);
  const facts = factsOf(event);
  const link = linkOf(event, baseUrl);
  const subject = subjectLine(`[Rampart] ${title}${nameOf(event.data) ? `: ${nameOf(event.data)}` : ''}`);
  const text = [
    sentence,
    '',
    textFacts(facts),
    '',
    `Open in Rampart: ${link}`,
    '',
    '-- ',
    FOOTER_TEXT,
    `${baseUrl}/profile#notifications`,
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
  const html = layout(
    subject,
    [
      `<h1 style="font-size:20px;margin:0 0 8px;">${escapeHtml(title)}</h1>`,
      `<p style="font-size:15px;line-height:1.5;margin:0;">${escapeHtml(sentence)}</p>`,
      factsTable(facts),
      button(link, 'Open in Rampart'),
    ].join('\n'),
    footerHtml(baseUrl),
  );
  return { subject, text, html };
}

/** Several events in one email (a rule's batch, or a day's digest), grouped by type. */
export function renderEvents(
  events: MailEvent[],
  baseUrl: string,
  heading: { subject: string; intro: string },
): MailContent {
  if (events.length === 1 && !heading.intro) return renderEvent(events[0]!, baseUrl);
  const byType = new Map<string, MailEvent[]>();
  for (const e of events) byType.set(e.type, [...(byType.get(e.type) ?? []), e]);
  const subject = subjectLine(heading.subject);
  const textParts = [heading.intro, ''];
  const htmlParts = [
    `<h1 style="font-size:20px;margin:0 0 8px;">${escapeHtml(subject.replace(/^\[Rampart\] /, ''))}</h1>`,
    `<p style="font-size:15px;line-height:1.5;margin:0 0 8px;">${escapeHtml(heading.intro)}</p>`,
  ];
  for (const [type, group] of byType) {
    const title = `${titleOf(type)} (${group.length})`;
    textParts.push(title, '-'.repeat(title.length));
    htmlParts.push(
      `<h2 style="font-size:16px;margin:20px 0 6px;">${escapeHtml(title)}</h2><ul style="margin:0;padding-left:20px;font-size:14px;line-height:1.6;">`,
    );
    for (const e of group) {
      const link = linkOf(e, baseUrl);
      const when = e.time ? ` (${e.time})` : '';
      textParts.push(`* ${sentenceOf(e)}${when}`, `  ${link}`);
      htmlParts.push(
        `<li>${escapeHtml(sentenceOf(e))}${escapeHtml(when)} <a href="${escapeHtml(link)}" style="color:#1c7ed6;">Open</a></li>`,
      );
    }
    htmlParts.push('</ul>');
    textParts.push('');
  }
  textParts.push(`Open Rampart: ${baseUrl}/`, '', '-- ', FOOTER_TEXT, `${baseUrl}/profile#notifications`);
  htmlParts.push(button(`${baseUrl}/`, 'Open Rampart'));
  return {
    subject,
    text: textParts.join('\n'),
    html: layout(subject, htmlParts.join('\n'), footerHtml(baseUrl)),
  };
}

/** A user's daily digest: the events of one day in their organisation's time zone. */
export function renderDigest(
  events: MailEvent[],
  baseUrl: string,
  day: string,
  timeZone: string,
): MailContent {
  const count = `${events.length} event${events.length === 1 ? '' : 's'}`;
  return renderEvents(events, baseUrl, {
    subject: `[Rampart] Daily digest for ${day}: ${count}`,
    intro: `What happened in Rampart on ${day} (${timeZone}) that you asked to hear about: ${count}.`,
  });
}
