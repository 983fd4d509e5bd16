import type { SqlFunction } from './types.js';

// The risk score, 0–100 (docs/intelligence.md, "Risk score", explains it with examples):
//   impact     = CVSS base score / 10, or the severity's typical value when no score is known
//   likelihood = 1 when CISA lists the CVE as exploited (KEV); else 0.5 + 0.5 × EPSS percentile;
//                0.75 (a median percentile) when EPSS does not know the CVE
//   context    = asset criticality (1…5 → 0.6, 0.8, 1.0, 1.15, 1.3) × 1.2 when internet-facing
//   risk       = min(100, 100 × impact × likelihood × context), two decimals
// Findings store the score it returns; a changed formula applies to findings as they are re-scored.
export const rampartRiskScore: SqlFunction = {
  name: 'rampart_risk_score',
  definition: `
    create or replace function rampart_risk_score(cvss numeric, severity text, epss_percentile numeric, kev boolean,
      criticality integer, internet_facing boolean) returns numeric
    language sql immutable parallel safe as $$
      select least(100, round(100
        * coalesce(cvss / 10, case severity when 'Critical' then 0.95 when 'High' then 0.75
            when 'Medium' then 0.5 when 'Low' then 0.25 else 0 end)
        * case when kev then 1 when epss_percentile is not null then 0.5 + 0.5 * epss_percentile else 0.75 end
        * case criticality when 1 then 0.6 when 2 then 0.8 when 4 then 1.15 when 5 then 1.3 else 1.0 end
        * case when internet_facing then 1.2 else 1.0 end, 2))
    $$`,
};
