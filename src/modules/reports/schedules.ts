import type { JobKind, JobPayload } from '../../jobs/catalogue.js';
import { ruleOfScheduleOption, type ScheduleOption } from '../../jobs/schedule-option.js';
import type { ScheduleInput } from '../../jobs/scheduler.js';
import type { ReportSources } from './service.js';

/** The kind of job a report definition's schedule enqueues. */
export const REPORT_JOB = 'report-generate' satisfies JobKind;

/** The little of the job scheduler a definition's schedule uses. */
export interface Scheduler {
  upsert(input: ScheduleInput): Promise<{ nextRunAt: Date | null }>;
  remove(organizationId: string | null, key: string): Promise<boolean>;
  get(organizationId: string | null, key: string): Promise<{ nextRunAt: Date | null } | undefined>;
}

/**
 * A definition's Weekly or Monthly ScheduleOption as a schedule keyed `report:<definition id>`
 * whose occurrences enqueue a report-generate job naming the definition (src/jobs/scheduler.ts:
 * each occurrence fires once across instances).
 */
export function reportSchedules(scheduler: Scheduler): ReportSources['schedules'] {
  const keyOf = (definitionId: string) => `report:${definitionId}`;
  return {
    apply: async (organizationId: string, definitionId: string, option: ScheduleOption | null) => {
      const rule = option ? ruleOfScheduleOption(option, ['schedule']) : null;
      if (!rule) {
        await scheduler.remove(organizationId, keyOf(definitionId));
        return null;
      }
      const schedule = await scheduler.upsert({
        organizationId,
        key: keyOf(definitionId),
        rule,
        jobKind: REPORT_JOB,
        payload: { definitionId } satisfies JobPayload<typeof REPORT_JOB>,
        maxAttempts: 2,
      });
      return schedule.nextRunAt;
    },
    nextRunAt: async (organizationId, definitionId) =>
      (await scheduler.get(organizationId, keyOf(definitionId)))?.nextRunAt ?? null,
  };
}
