import type { Transaction } from 'kysely';
import type { DB, Role } from '../../db/schema.js';
import type { JobKind } from '../../jobs/catalogue.js';
import { JobDeferred } from '../../jobs/worker.js';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { dateIn, startOfDayIn } from '../../lib/zoned-day.js';
import type { MailError, MailMessage, SentMail } from '../../mail/mailer.js';
import { EVENT_TITLES, type MailEvent, renderDigest, renderEvent } from '../../mail/templates.js';
import { invalid } from '../../problems/app-error.js';
import type { ServiceContext } from '../context.js';
import type { EmailMode, EmailNotificationRepository, QueueInsert, QueueRow } from './repository.js';

/** The job that sends one queued email at once (retried with the queue's backoff). */
export const EMAIL_SEND_JOB = 'notification-email' satisfies JobKind;
/** The system job that sends the daily digests whose day has ended. */
export const EMAIL_DIGEST_JOB = 'notification-digest' satisfies JobKind;
/** Attempts of an immediate email before it is Failed (about two hours with the queue's backoff). */
export const EMAIL_SEND_ATTEMPTS = 8;
/** How long an email waits, without using an attempt, while the server has no SMTP server. */
export const NOT_CONFIGURED_WAIT_MS = 15 * 60_000;

/** Every event type a person may receive by email, in the catalogue's order. */
export const EMAIL_EVENT_TYPES = Object.keys(EVENT_TITLES);
/** What only Admins may receive: the organisation's keys, roles and endpoints. */
const ADMIN_ONLY = new Set([
  'apikey.created',
  'apikey.revoked',
  'user.role_changed',
  'notification.endpoint_disabled',
]);
/** Told to every active Admin whatever their preferences: an endpoint stopped receiving events. */
export const ADMIN_NOTICE = 'notification.endpoint_disabled';

export interface EmailPreferences {
  eventTypes: string[];
  mode: EmailMode;
  updatedAt: Date | null;
}

/** An event as the dispatch hands it over: its organisation, name (scan.started) and envelope. */
export interface DispatchedEvent {
  organizationId: string;
  id: string;
  /** The catalogue's name, without the `rampart.` of the envelope's type. */
  type: string;
  envelope: MailEvent & Record<string, unknown>;
}

/** What is asked of the mailer (src/mail): a MailError when not sent. */
export interface MailSender {
  readonly configured: boolean;
  readonly server: string | null;
  send(message: MailMessage, signal?: AbortSignal): Promise<SentMail>;
}

/** What is asked of the users module. */
export interface EmailUsers {
  get(ctx: ServiceContext, id: string): Promise<{ id: string; email: string; role: Role; active: boolean }>;
  listAll(ctx: ServiceContext): Promise<{ id: string; email: string; role: Role; active: boolean }[]>;
}

/** The durable job queue: immediate email is sent by a job enqueued in the dispatch's transaction. */
export interface EmailJobs {
  enqueue(
    kind: typeof EMAIL_SEND_JOB,
    payload: { queueId: string },
    options: { organizationId: string; maxAttempts: number },
    trx?: Transaction<DB>,
  ): Promise<string>;
}

export interface EmailNotificationOptions {
  /** The web app's address, for the links of every email. */
  baseUrl: string;
  /** The organisation's time zone (its settings), in which a digest's day begins and ends. */
  timeZone(organizationId: string): Promise<string>;
  log?: (message: string, details: Record<string, unknown>) => void;
}

const systemCtx = (organizationId: string): ServiceContext => ({
  organizationId,
  actor: { type: 'system', id: null },
});

/**
 * Email to people: each user's preferences (which event types, at once or in a daily digest),
 * the queue their email waits in (written in the dispatch's transaction: no event lost between
 * the outbox and the mail), the sending of it, and the Admins' notice of a disabled endpoint.
 */
export class EmailNotificationService {
  constructor(
    private readonly repo: EmailNotificationRepository,
    private readonly mailer: MailSender,
    private readonly users: EmailUsers,
    private readonly jobs: EmailJobs,
    private readonly clock: Clock,
    private readonly options: EmailNotificationOptions,
  ) {}

  get emailConfigured(): boolean {
    return this.mailer.configured;
  }

  /** The event types a user of this role may choose. */
  availableTypes(role: Role | undefined): string[] {
    return EMAIL_EVENT_TYPES.filter((t) => role === 'Admin' || !ADMIN_ONLY.has(t));
  }

  /** The calling user's preferences (nothing chosen, immediate, until they save some). */
  async preferences(ctx: ServiceContext): Promise<EmailPreferences> {
    const row = await this.repo.findPreferences(ctx.organizationId, this.userOf(ctx));
    return row
      ? { eventTypes: row.event_types, mode: row.mode, updatedAt: row.updated_at }
      : { eventTypes: [], mode: 'Immediate', updatedAt: null };
  }

  /** Saves the calling user's preferences: every type must be known and open to their role (400). */
  async setPreferences(
    ctx: ServiceContext,
    input: { eventTypes: string[]; mode: EmailMode },
  ): Promise<EmailPreferences> {
    const userId = this.userOf(ctx);
    const available = new Set(this.availableTypes(ctx.role));
    input.eventTypes.forEach((type, i) => {
      if (!EMAIL_EVENT_TYPES.includes(type))
        throw invalid(
          ['eventTypes', String(i)],
          `'${type}' is not an event type; known ones: ${EMAIL_EVENT_TYPES.join(', ')}.`,
        );
      if (!available.has(type))
        throw invalid(['eventTypes', String(i)], `Only Admins receive ${type} events.`);
    });
    const eventTypes = EMAIL_EVENT_TYPES.filter((t) => input.eventTypes.includes(t));
    await this.repo.savePreferences(ctx.organizationId, userId, eventTypes, input.mode, this.clock());
    return this.preferences(ctx);
  }

  /** The calling user's latest email (what was sent, what waits and why). */
  async recent(ctx: ServiceContext, limit = 10): Promise<QueueRow[]> {
    return this.repo.recent(ctx.organizationId, this.userOf(ctx), limit);
  }

  /**
   * The dispatch's consumer (run in the transaction that marks the events dispatched): queues the
   * email of every user who asked for an event's type, and the Admins' notice of a disabled
   * endpoint; an immediate one gets its sending job in the same transaction.
   */
  async dispatch(trx: Transaction<DB>, events: DispatchedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const orgs = [...new Set(events.map((e) => e.organizationId))];
    const types = [...new Set(events.map((e) => e.type))];
    const subscribers = await this.repo.subscribers(trx, orgs, types);
    const at = this.clock();
    const rows: QueueInsert[] = [];
    const row = (e: DispatchedEvent, userId: string, mode: EmailMode): QueueInsert => ({
      organizationId: e.organizationId,
      id: uuidv7(at.getTime()),
      userId,
      eventId: e.id,
      eventType: e.type,
      envelope: e.envelope,
      mode,
      createdAt: at,
    });
    for (const e of events)
      for (const s of subscribers)
        if (s.organization_id === e.organizationId && s.event_types.includes(e.type))
          rows.push(row(e, s.user_id, s.mode));
    for (const e of events.filter((x) => x.type === ADMIN_NOTICE)) {
      const admins = (await this.users.listAll(systemCtx(e.organizationId))).filter(
        (u) => u.active && u.role === 'Admin',
      );
      for (const admin of admins)
        if (!rows.some((r) => r.userId === admin.id && r.eventId === e.id && r.mode === 'Immediate'))
          rows.push(row(e, admin.id, 'Immediate'));
    }
    // A digest subscriber still hears of a disabled endpoint at once: one row per user and event.
    const unique = new Map<string, QueueInsert>();
    for (const r of rows) {
      const key = `${r.organizationId}/${r.userId}/${r.eventId}`;
      if (!unique.has(key) || r.mode === 'Immediate') unique.set(key, r);
    }
    const inserted = await this.repo.enqueue(trx, [...unique.values()]);
    const immediate = new Set([...unique.values()].filter((r) => r.mode === 'Immediate').map((r) => r.id));
    for (const r of inserted)
      if (immediate.has(r.id))
        await this.jobs.enqueue(
          EMAIL_SEND_JOB,
          { queueId: r.id },
          { organizationId: r.organizationId, maxAttempts: EMAIL_SEND_ATTEMPTS },
          trx,
        );
  }

  /**
   * The job: sends one queued email. A failure is recorded on the row and thrown, so that the job
   * is tried again with backoff; the last attempt leaves it Failed with the reason.
   */
  async sendQueued(organizationId: string, queueId: string, lastAttempt: boolean, signal?: AbortSignal) {
    const row = await this.repo.find(organizationId, queueId);
    if (!row || row.state !== 'Pending') return;
    const user = await this.users.get(systemCtx(organizationId), row.user_id).catch(() => undefined);
    if (!user?.active) {
      await this.repo.mark(organizationId, [row.id], {
        state: 'Skipped',
        error: 'The user is no longer active.',
        at: this.clock(),
      });
      return;
    }
    // No SMTP server yet: the email waits, saying why, without using up its attempts.
    if (!this.mailer.configured) {
      const why =
        'Email is not configured: set RAMPART_SMTP_URL and RAMPART_MAIL_FROM on the server. The email waits.';
      await this.repo.note(organizationId, row.id, why);
      throw new JobDeferred(NOT_CONFIGURED_WAIT_MS, why);
    }
    const content = renderEvent(row.envelope as unknown as MailEvent, this.options.baseUrl);
    try {
      await this.mailer.send({ to: user.email, ...content }, signal);
    } catch (error) {
      const failure = error as MailError;
      const final = lastAttempt || failure.retryable === false;
      await this.repo.mark(organizationId, [row.id], {
        state: final ? 'Failed' : 'Pending',
        error: failure.message,
        at: this.clock(),
      });
      this.options.log?.('notification email not sent', {
        organizationId,
        queueId,
        eventType: row.event_type,
        reason: failure.message,
        final,
      });
      if (!final) throw error;
      return;
    }
    await this.repo.mark(organizationId, [row.id], { state: 'Sent', error: null, at: this.clock() });
  }

  /**
   * The digest job: every user whose waiting events come from days that have ended in their
   * organisation's time zone gets one email with all of them. A failure leaves them waiting with
   * the reason (the next run tries again); the others are still sent.
   */
  async sendDigests(signal?: AbortSignal): Promise<{ sent: number; failed: number }> {
    let sent = 0;
    let failed = 0;
    const now = this.clock();
    const zones = new Map<string, string>();
    for (const { organization_id: org, user_id: userId } of await this.repo.digestRecipients()) {
      if (signal?.aborted) break;
      if (!zones.has(org)) zones.set(org, await this.zoneOf(org));
      const zone = zones.get(org)!;
      const ok = await this.sendDigest(org, userId, startOfDayIn(now, zone), zone, signal);
      if (ok === true) sent++;
      else if (ok === false) failed++;
    }
    return { sent, failed };
  }

  private async sendDigest(
    org: string,
    userId: string,
    before: Date,
    zone: string,
    signal?: AbortSignal,
  ): Promise<boolean | null> {
    const user = await this.users.get(systemCtx(org), userId).catch(() => undefined);
    return this.repo.transaction(async (trx) => {
      const rows = await this.repo.claimDigest(trx, org, userId, before);
      if (rows.length === 0) return null;
      const ids = rows.map((r) => r.id);
      const at = this.clock();
      if (!user?.active) {
        await this.repo.mark(org, ids, { state: 'Skipped', error: 'The user is no longer active.', at }, trx);
        return null;
      }
      const first = dateIn(rows[0]!.created_at, zone);
      const last = dateIn(rows[rows.length - 1]!.created_at, zone);
      const day = first === last ? first : `${first} to ${last}`;
      const content = renderDigest(
        rows.map((r) => r.envelope as unknown as MailEvent),
        this.options.baseUrl,
        day,
        zone,
      );
      try {
        await this.mailer.send({ to: user.email, ...content }, signal);
      } catch (error) {
        await this.repo.mark(org, ids, { state: 'Pending', error: (error as Error).message, at }, trx);
        this.options.log?.('notification digest not sent', {
          organizationId: org,
          userId,
          events: rows.length,
          reason: (error as Error).message,
        });
        return false;
      }
      await this.repo.mark(org, ids, { state: 'Sent', error: null, at }, trx);
      return true;
    });
  }

  private async zoneOf(org: string): Promise<string> {
    try {
      return (await this.options.timeZone(org)) || 'UTC';
    } catch {
      return 'UTC';
    }
  }

  private userOf(ctx: ServiceContext): string {
    if (!ctx.userId) throw invalid('user', 'Notification preferences belong to a user.');
    return ctx.userId;
  }
}
