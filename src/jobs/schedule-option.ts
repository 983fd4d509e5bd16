import { type Static, Type } from 'typebox';
import { invalid } from '../problems/app-error.js';
import type { ScheduleRule } from './schedule-rule.js';
import { validateRule } from './schedule-rule.js';

export const SCHEDULING_MODES = ['None', 'Once', 'Hourly', 'Daily', 'Weekly', 'Monthly', 'Cron'] as const;
export const DAYS_OF_WEEK = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;
export type DayOfWeek = (typeof DAYS_OF_WEEK)[number];

/** Hourly schedules run at most a year apart. */
const MAX_HOURS = 8760;

/**
 * The original service's ScheduleOption: when a scheduled thing (a discovery scan…) runs. The
 * times of day of Daily, Weekly and Monthly schedules are read in TimeZone, so that 09:00 stays
 * 09:00 across daylight saving time.
 */
export const ScheduleOptionSchema = Type.Object(
  {
    SchedulingMode: Type.Union(
      [
        Type.Literal('None'),
        Type.Literal('Once'),
        Type.Literal('Hourly'),
        Type.Literal('Daily'),
        Type.Literal('Weekly'),
        Type.Literal('Monthly'),
        Type.Literal('Cron'),
      ],
      {
        description: [
          '`None`: not scheduled (run on demand only); the other fields are ignored.',
          '`Once`: at StartTime.',
          '`Hourly`: every Interval hours (default 1) from StartTime on.',
          '`Daily`: every day at the time of day of StartTime (in TimeZone), from StartTime on.',
          '`Weekly`: on DaysOfWeek (default the weekday of StartTime) at its time of day.',
          '`Monthly`: on DayOfMonth (default the day of StartTime) at its time of day; a month without that day (the 31st in April) is skipped.',
          '`Cron`: at the times of the five-field expression Cron (minute hour day-of-month month day-of-week) in TimeZone, not before StartTime when given.',
        ].join(' '),
      },
    ),
    StartTime: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'The first run, and the time of day of Daily, Weekly and Monthly runs. Needed by every mode but None and Cron.',
      }),
    ),
    Interval: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_HOURS,
        description: 'Hourly only: the hours between runs (default 1). Other modes take none, or 1.',
      }),
    ),
    DaysOfWeek: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Literal('Sunday'),
          Type.Literal('Monday'),
          Type.Literal('Tuesday'),
          Type.Literal('Wednesday'),
          Type.Literal('Thursday'),
          Type.Literal('Friday'),
          Type.Literal('Saturday'),
        ]),
        {
          minItems: 1,
          maxItems: 7,
          uniqueItems: true,
          description: 'Weekly only: the days it runs on.',
        },
      ),
    ),
    DayOfMonth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 31,
        description: 'Monthly only: the day of the month it runs on.',
      }),
    ),
    Cron: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Cron only: a five-field cron expression, e.g. `30 2 * * 1-5` (02:30 on weekdays).',
      }),
    ),
    TimeZone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'An IANA time zone, e.g. `Europe/Berlin` (default `UTC`).',
      }),
    ),
  },
  { description: 'When it runs.' },
);

export type ScheduleOption = Static<typeof ScheduleOptionSchema>;

/** The time of day, weekday and day of month of `at` in `timeZone`. */
function partsIn(at: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    hour: 'numeric',
    minute: 'numeric',
    day: 'numeric',
    weekday: 'long',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return {
    minute: Number(part('minute')),
    hour: Number(part('hour')),
    day: Number(part('day')),
    weekday: part('weekday') as DayOfWeek,
  };
}

/**
 * The rule an option describes, or null for None. Refuses (400, naming the field under `at`) an
 * option that lacks what its mode needs or carries what it cannot use.
 */
export function ruleOfScheduleOption(
  option: ScheduleOption,
  at: readonly string[] = ['schedule'],
): ScheduleRule | null {
  const field = (name: string) => [...at, name];
  const mode = option.SchedulingMode;
  if (mode === 'None') return null;
  const timeZone = option.TimeZone ?? 'UTC';
  const startAt = option.StartTime === undefined ? undefined : new Date(option.StartTime);
  if (startAt && Number.isNaN(startAt.getTime()))
    throw invalid(field('startTime'), `'${option.StartTime}' is not a date and time (RFC 3339).`);
  if (option.Interval !== undefined && option.Interval !== 1 && mode !== 'Hourly')
    throw invalid(
      field('interval'),
      `Only Hourly schedules take an Interval; a ${mode} one runs every time it names.`,
    );
  if (option.DaysOfWeek !== undefined && mode !== 'Weekly')
    throw invalid(field('daysOfWeek'), `Only Weekly schedules take DaysOfWeek, not ${mode} ones.`);
  if (option.DayOfMonth !== undefined && mode !== 'Monthly')
    throw invalid(field('dayOfMonth'), `Only Monthly schedules take DayOfMonth, not ${mode} ones.`);
  if (option.Cron !== undefined && mode !== 'Cron')
    throw invalid(field('cron'), `Only Cron schedules take a Cron expression, not ${mode} ones.`);
  let rule: ScheduleRule;
  if (mode === 'Cron') {
    if (option.Cron === undefined) throw invalid(field('cron'), 'A Cron schedule needs its Cron expression.');
    rule = { type: 'cron', expression: option.Cron.trim(), timeZone, ...(startAt ? { startAt } : {}) };
  } else {
    if (!startAt) throw invalid(field('startTime'), `A ${mode} schedule needs its StartTime.`);
    if (mode === 'Once') rule = { type: 'once', at: startAt };
    else if (mode === 'Hourly') rule = { type: 'interval', seconds: (option.Interval ?? 1) * 3600, startAt };
    else {
      validateRule({ type: 'cron', expression: '* * * * *', timeZone }, at);
      const local = partsIn(startAt, timeZone);
      const days =
        mode === 'Daily'
          ? '* * *'
          : mode === 'Weekly'
            ? `* * ${(option.DaysOfWeek ?? [local.weekday])
                .map((d) => DAYS_OF_WEEK.indexOf(d))
                .sort((a, b) => a - b)
                .join(',')}`
            : `${option.DayOfMonth ?? local.day} * *`;
      rule = { type: 'cron', expression: `${local.minute} ${local.hour} ${days}`, timeZone, startAt, mode };
    }
  }
  validateRule(rule, at);
  return rule;
}

/** The option a rule came from (null: None), so that an API answers what it was given. */
export function scheduleOptionOfRule(rule: ScheduleRule | null): ScheduleOption {
  if (rule === null) return { SchedulingMode: 'None' };
  if (rule.type === 'once') return { SchedulingMode: 'Once', StartTime: rule.at.toISOString() };
  const start = rule.startAt ? { StartTime: rule.startAt.toISOString() } : {};
  if (rule.type === 'interval') {
    if (rule.seconds % 3600 !== 0)
      throw new Error(`An interval of ${rule.seconds} s is not a ScheduleOption.`);
    return { SchedulingMode: 'Hourly', ...start, Interval: rule.seconds / 3600 };
  }
  const fields = rule.expression.split(/\s+/);
  if (rule.mode === 'Daily') return { SchedulingMode: 'Daily', ...start, TimeZone: rule.timeZone };
  if (rule.mode === 'Weekly')
    return {
      SchedulingMode: 'Weekly',
      ...start,
      DaysOfWeek: fields[4]!.split(',').map((n) => DAYS_OF_WEEK[Number(n)]!),
      TimeZone: rule.timeZone,
    };
  if (rule.mode === 'Monthly')
    return { SchedulingMode: 'Monthly', ...start, DayOfMonth: Number(fields[2]), TimeZone: rule.timeZone };
  return { SchedulingMode: 'Cron', ...start, Cron: rule.expression, TimeZone: rule.timeZone };
}
