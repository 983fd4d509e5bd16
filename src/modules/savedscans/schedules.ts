import type { JobKind, JobPayload } from '../../jobs/catalogue.js';
import { ruleOfScheduleOption, type ScheduleOption } from '../../jobs/schedule-option.js';
import type { ScheduleInput } from '../../jobs/scheduler.js';
import type { ScanSchedules } from './dependencies.js';

/** The jobs a scan's schedule enqueues, each with the scan's id (src/jobs/catalogue.ts). */
export type ScanStartJob = Extract<JobKind, `${string}-scan.start`>;

/** The little of the job scheduler a scan's schedule uses. */
export interface Scheduler {
  upsert(input: ScheduleInput): Promise<{ nextRunAt: Date | null }>;
  remove(organizationId: string | null, key: string): Promise<boolean>;
  get(
    organizationId: string | null,
    key: string,
  ): Promise<{ id: string; nextRunAt: Date | null } | undefined>;
}

/**
 * A scan's ScheduleOption as a schedule keyed `<prefix>:<scan id>` that enqueues `jobKind` with
 * the scan's id at each occurrence.
 */
export function scanSchedules(scheduler: Scheduler, prefix: string, jobKind: ScanStartJob): ScanSchedules {
  const keyOf = (scanId: string) => `${prefix}:${scanId}`;
  return {
    check: (option) => {
      if (option) ruleOfScheduleOption(option, ['schedule']);
    },
    apply: async (organizationId: string, scanId: string, option: ScheduleOption | null) => {
      const rule = option ? ruleOfScheduleOption(option, ['schedule']) : null;
      if (!rule) {
        await scheduler.remove(organizationId, keyOf(scanId));
        return null;
      }
      const schedule = await scheduler.upsert({
        organizationId,
        key: keyOf(scanId),
        rule,
        jobKind,
        payload: { scanId } satisfies JobPayload<ScanStartJob>,
        maxAttempts: 1,
      });
      return schedule.nextRunAt;
    },
    nextRunAt: async (organizationId, scanId) =>
      (await scheduler.get(organizationId, keyOf(scanId)))?.nextRunAt ?? null,
    scheduleId: async (organizationId, scanId) =>
      (await scheduler.get(organizationId, keyOf(scanId)))?.id ?? null,
  };
}
