import type { Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import { isTimeZone } from '../../jobs/schedule-rule.js';
import type { Clock } from '../../lib/clock.js';
import type { Listeners } from '../../lib/listeners.js';
import { invalid } from '../../problems/app-error.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
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
}

/** Raised after an organisation's time zone changed; its daily history schedule follows it. */
export type TimeZoneChanged = Listeners<[organizationId: string, timeZone: string]>;

export class SettingsService {
  constructor(
    private readonly repo: SettingsRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly timeZoneChanged?: TimeZoneChanged,
  ) {}

  async get(organizationId: string): Promise<OrganizationSettings> {
    return { sla: await this.sla(organizationId), timeZone: await this.timeZone(organizationId) };
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
