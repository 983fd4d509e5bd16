import type { Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import { isTimeZone } from '../../jobs/schedule-rule.js';
import type { Clock } from '../../lib/clock.js';
import type { Listeners } from '../../lib/listeners.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import { roleAllows } from '../principal.js';
import type { SettingsRepository, SlaDays as SlaColumns } from './repository.js';

/**
 * Days to fix a finding from when it was first seen, by severity, and for one whose vulnerability
 * is in CISA's KEV catalogue (Kev; the sooner of the two applies); null means no deadline.
 */
export type SlaDays = Record<Severity | 'Kev', number | null>;

/**
 * Common defaults (as in PCI DSS and most vulnerability programmes) until an organisation sets its
 * own; KEV's 14 days is CISA's own window for newly added CVEs (BOD 22-01), counted from first seen.
 */
export const DEFAULT_SLA: SlaDays = { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null, Kev: 14 };

/** The time zone an organisation has until it sets one. */
export const DEFAULT_TIME_ZONE = 'UTC';

export interface OrganizationSettings {
  sla: SlaDays;
  timeZone: string;
  auditRetentionDays: number | null;
  /** Password users must have a second factor to sign in (docs/mfa.md). */
  requireMfa: boolean;
}

/** Raised after an organisation's time zone changed; its daily history schedule follows it. */
export type TimeZoneChanged = Listeners<[organizationId: string, timeZone: string]>;

/** Audit entries are kept a year unless the organisation says otherwise (null: for ever). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

export class SettingsService {
  constructor(
    private readonly repo: SettingsRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly timeZoneChanged?: TimeZoneChanged,
  ) {}

  async get(organizationId: string): Promise<OrganizationSettings> {
    return {
      sla: await this.sla(organizationId),
      timeZone: await this.timeZone(organizationId),
      auditRetentionDays: await this.auditRetentionDays(organizationId),
      requireMfa: await this.requireMfa(organizationId),
    };
  }

  /** The organisation's IANA time zone: its calendar days in history and trends. */
  async timeZone(organizationId: string): Promise<string> {
    return (await this.repo.timeZone(organizationId)) ?? DEFAULT_TIME_ZONE;
  }

  async sla(organizationId: string): Promise<SlaDays> {
    const row = await this.repo.find(organizationId);
    if (!row) return { ...DEFAULT_SLA };
    return {
      Critical: row.sla_critical_days,
      High: row.sla_high_days,
      Medium: row.sla_medium_days,
      Low: row.sla_low_days,
      Info: row.sla_info_days,
      Kev: row.sla_kev_days,
    };
  }

  /**
   * The next ticket number of an organisation, counted here because the counter is a column of
   * its settings; taken inside the caller's transaction, whose row lock orders concurrent tickets.
   */
  nextTicketNumber(organizationId: string, at: Date, trx: Transaction<DB>): Promise<number> {
    // The row this may create must hold the SLAs the organisation had until now: the defaults.
    return this.repo.nextTicketNumber(organizationId, at, slaRow(DEFAULT_SLA), trx);
  }

  /** Sets the SLAs, and the time zone when given; a KEV SLA left out (undefined) stays as it was. */
  async setSla(
    ctx: ServiceContext,
    severities: Record<Severity, number | null>,
    kev?: number | null,
    timeZone?: string,
  ): Promise<OrganizationSettings> {
    if (timeZone !== undefined && !isTimeZone(timeZone))
      throw invalid('timeZone', `'${timeZone}' is not a known IANA time zone (e.g. Europe/Berlin, UTC).`);
    const before = await this.get(ctx.organizationId);
    const sla: SlaDays = { ...severities, Kev: kev === undefined ? before.sla.Kev : kev };
    await this.repo.save(ctx.organizationId, this.clock(), slaRow(sla), timeZone);
    // Recorded when something changed: a PUT that changes another setting sends the SLAs as they are.
    if (JSON.stringify(slaRow(before.sla)) !== JSON.stringify(slaRow(sla)))
      await this.audit.record(ctx, 'settings.sla_changed', null, { sla });
    if (timeZone !== undefined && timeZone !== before.timeZone) {
      await this.audit.record(ctx, 'settings.time_zone_changed', null, {
        from: before.timeZone,
        to: timeZone,
      });
      await this.timeZoneChanged?.notify(ctx.organizationId, timeZone);
    }
    return this.get(ctx.organizationId);
  }

  /** Days the organisation's audit entries are kept; null: for ever. */
  async auditRetentionDays(organizationId: string): Promise<number | null> {
    const row = await this.repo.find(organizationId);
    return row ? row.audit_retention_days : DEFAULT_AUDIT_RETENTION_DAYS;
  }

  /**
   * Sets how long audit entries are kept (30 to 3650 days, null for ever). Only an Admin may: a
   * shorter retention removes entries, so those who can read the log decide it.
   */
  async setAuditRetention(ctx: ServiceContext, days: number | null): Promise<number | null> {
    const from = await this.auditRetentionDays(ctx.organizationId);
    if (from === days) return from;
    if (ctx.role && !roleAllows(ctx.role, 'Admin'))
      throw AppError.of(
        Problems.Forbidden,
        `Changing AuditRetentionDays requires the Admin role; your role is ${ctx.role}.`,
      );
    await this.repo.saveAuditRetention(
      ctx.organizationId,
      this.clock(),
      days,
      slaRow(await this.sla(ctx.organizationId)),
    );
    await this.audit.record(ctx, 'settings.audit_retention_changed', null, { from, to: days });
    return days;
  }

  /** Whether the organisation's password users must have a second factor (false until an Admin says so). */
  async requireMfa(organizationId: string): Promise<boolean> {
    return (await this.repo.find(organizationId))?.require_mfa ?? false;
  }

  /**
   * Requires a second factor of password users, or stops requiring it. Only an Admin may: it
   * decides how everyone signs in. It applies from each user's next sign-in (docs/mfa.md).
   */
  async setRequireMfa(ctx: ServiceContext, required: boolean): Promise<boolean> {
    const from = await this.requireMfa(ctx.organizationId);
    if (from === required) return from;
    if (ctx.role && !roleAllows(ctx.role, 'Admin'))
      throw AppError.of(
        Problems.Forbidden,
        `Changing RequireMfa requires the Admin role; your role is ${ctx.role}.`,
      );
    await this.repo.saveRequireMfa(
      ctx.organizationId,
      this.clock(),
      required,
      slaRow(await this.sla(ctx.organizationId)),
    );
    await this.audit.record(ctx, 'settings.require_mfa_changed', null, { from, to: required });
    return required;
  }
}

function slaRow(sla: SlaDays): SlaColumns {
  return {
    sla_critical_days: sla.Critical,
    sla_high_days: sla.High,
    sla_medium_days: sla.Medium,
    sla_low_days: sla.Low,
    sla_info_days: sla.Info,
    sla_kev_days: sla.Kev,
  };
}
