import type { SqlFunction } from './types.js';

// The due date: the organisation's SLA for the severity from first sight, or CISA's KEV due date
// (the last second of that day, UTC) when that comes sooner.
export const rampartDueAt: SqlFunction = {
  name: 'rampart_due_at',
  definition: `
    create or replace function rampart_due_at(severity text, first_seen timestamptz, kev_due date,
      sla_critical integer, sla_high integer, sla_medium integer, sla_low integer, sla_info integer)
    returns timestamptz
    language sql stable parallel safe as $$
      select least(
        first_seen + make_interval(days => case severity when 'Critical' then sla_critical
          when 'High' then sla_high when 'Medium' then sla_medium when 'Low' then sla_low else sla_info end),
        (kev_due + time '23:59:59')::timestamp at time zone 'UTC')
    $$`,
};
