import { CronExpressionParser } from 'cron-parser';
import { invalid } from '../problems/app-error.js';
import type { Field } from '../problems/fields.js';

/**
 * When a schedule fires:
 * - `cron`: at the times of a five-field cron expression (minute hour day-of-month month
 *   day-of-week) read in an IANA time zone, not before `startAt` when given. `mode` only remembers
 *   which ScheduleOption made it (schedule-option.ts), so that the same option can be answered.
 * - `interval`: every `seconds`, counted from `startAt` (or from the first run when left out).
 * - `once`: at one time; the schedule disables itself once it fired.
 */
export type ScheduleRule =
  | { type: 'cron'; expression: string; timeZone: string; startAt?: Date; mode?: CronMode }
  | { type: 'interval'; seconds: number; startAt?: Date }
  | { type: 'once'; at: Date };

export type CronMode = 'Daily' | 'Weekly' | 'Monthly';

/** The shortest interval: schedules are for minutes and longer, not a busy loop. */
export const MIN_INTERVAL_SECONDS = 60;
/** The longest interval: ten years. */
export const MAX_INTERVAL_SECONDS = 10 * 366 * 86_400;

/** Whether `zone` is an IANA time zone this runtime knows (Intl refuses the others). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const isDate = (d: unknown): d is Date => d instanceof Date && !Number.isNaN(d.getTime());

/**
 * Refuses a rule that could never fire or fires too often, with a 400 naming the field under
 * `at` (the caller's name for the rule).
 */
export function validateRule(rule: ScheduleRule, at: Field = 'rule'): void {
  const field = (name: string): readonly string[] => [...(typeof at === 'string' ? [at] : at), name];
  if (rule.type === 'cron') {
    if (!isTimeZone(rule.timeZone))
      throw invalid(
        field('timeZone'),
        `'${rule.timeZone}' is not a known IANA time zone (e.g. Europe/Berlin, UTC).`,
      );
    const fields = rule.expression.trim().split(/\s+/);
    if (fields.length !== 5)
      throw invalid(
        field('cron'),
        `A cron expression has five fields (minute hour day-of-month month day-of-week); '${rule.expression}' has ${fields.length}.`,
      );
    try {
      CronExpressionParser.parse(rule.expression, { tz: rule.timeZone, currentDate: new Date(0) }).next();
    } catch (error) {
      throw invalid(
        field('cron'),
        `'${rule.expression}' is not a valid cron expression: ${(error as Error).message}.`,
      );
    }
    if (rule.startAt !== undefined && !isDate(rule.startAt))
      throw invalid(field('startTime'), 'The start time is not a valid time.');
    return;
  }
  if (rule.type === 'interval') {
    if (
      !Number.isInteger(rule.seconds) ||
      rule.seconds < MIN_INTERVAL_SECONDS ||
      rule.seconds > MAX_INTERVAL_SECONDS
    )
      throw invalid(
        field('interval'),
        `An interval is a whole number of seconds from ${MIN_INTERVAL_SECONDS} to ${MAX_INTERVAL_SECONDS}, not ${rule.seconds}.`,
      );
    if (rule.startAt !== undefined && !isDate(rule.startAt))
      throw invalid(field('startTime'), 'The start time is not a valid time.');
    return;
  }
  if (rule.type === 'once') {
    if (!isDate(rule.at)) throw invalid(field('startTime'), 'The time to run at is not a valid time.');
    return;
  }
  throw invalid(field('type'), `A rule is cron, interval or once, not ${(rule as { type: string }).type}.`);
}

/** The first cron time strictly after `after`. */
function cronAfter(rule: Extract<ScheduleRule, { type: 'cron' }>, after: Date): Date | null {
  const expression = CronExpressionParser.parse(rule.expression, { currentDate: after, tz: rule.timeZone });
  return expression.hasNext() ? expression.next().toDate() : null;
}

/** The first time of the rule at or after `from` (and not before its start): a new schedule's next run. */
export function firstRun(rule: ScheduleRule, from: Date): Date | null {
  if (rule.type === 'once') return rule.at;
  const start = rule.startAt && rule.startAt > from ? rule.startAt : from;
  if (rule.type === 'cron') return cronAfter(rule, new Date(start.getTime() - 1));
  if (!rule.startAt || rule.startAt >= from) return start;
  return stepPast(rule.startAt, rule.seconds, new Date(from.getTime() - 1));
}

/**
 * The next time of the rule after `occurrence` fired at `now`: strictly after now, so that the
 * occurrences missed while no instance ran fire once between them, not as a storm. Null when the
 * rule fires no more (a once rule).
 */
export function nextRun(rule: ScheduleRule, occurrence: Date, now: Date): Date | null {
  const after = occurrence > now ? occurrence : now;
  if (rule.type === 'once') return null;
  if (rule.type === 'cron') return cronAfter(rule, after);
  return stepPast(rule.startAt ?? occurrence, rule.seconds, after);
}

/** anchor + k·seconds, the first such time strictly after `after` (k ≥ 0). */
function stepPast(anchor: Date, seconds: number, after: Date): Date {
  const step = seconds * 1000;
  const k = Math.max(0, Math.floor((after.getTime() - anchor.getTime()) / step) + 1);
  return new Date(anchor.getTime() + k * step);
}

/** The rule as stored (jsonb): times as ISO strings. */
export function ruleToJson(rule: ScheduleRule): Record<string, unknown> {
  if (rule.type === 'once') return { type: 'once', at: rule.at.toISOString() };
  const { startAt, ...rest } = rule;
  return startAt ? { ...rest, startAt: startAt.toISOString() } : { ...rest };
}

export function ruleFromJson(json: unknown): ScheduleRule {
  const r = (typeof json === 'string' ? JSON.parse(json) : json) as Record<string, unknown>;
  const startAt = typeof r.startAt === 'string' ? { startAt: new Date(r.startAt) } : {};
  if (r.type === 'once') return { type: 'once', at: new Date(String(r.at)) };
  if (r.type === 'interval') return { type: 'interval', seconds: Number(r.seconds), ...startAt };
  return {
    type: 'cron',
    expression: String(r.expression),
    timeZone: String(r.timeZone),
    ...startAt,
    ...(r.mode ? { mode: r.mode as CronMode } : {}),
  };
}
