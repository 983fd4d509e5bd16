import type { SqlFunction } from './types.js';

// The due date, counted from when the finding was first seen: the organisation's SLA for its
// severity, or its KEV SLA when the vulnerability is in CISA's KEV catalogue and that comes
// sooner. CISA's own due date is a deadline for federal agencies from the day the CVE joined the
// catalogue, often before the finding was found: it is shown beside the due date, not used for it.
// Null days: no deadline of that kind.
export const rampartDueAt: SqlFunction = {
  name: 'rampart_due_at',
  definition: `
    create or replace function rampart_due_at(severity text, first_seen timestamptz, kev boolean,
      sla_critical integer, sla_high integer, sla_medium integer, sla_low integer, sla_info integer,
      sla_kev integer)
    returns timestamptz
    language sql stable parallel safe as $$
      select least(
        first_seen + make_interval(days => case severity when 'Critical' then sla_critical
          when 'High' then sla_high when 'Medium' then sla_medium when 'Low' then sla_low else sla_info end),
        case when kev then first_seen + make_interval(days => sla_kev) end)
    $$`,
};
