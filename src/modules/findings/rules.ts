import type { FindingState, Role, Severity } from '../../db/schema.js';

/** Where a finding may go from each state by a person's decision (scans decide Fixed/Reopened too). */
export const TRANSITIONS: Record<FindingState, readonly FindingState[]> = {
  Open: ['Fixed', 'RiskAccepted', 'FalsePositive'],
  Reopened: ['Fixed', 'RiskAccepted', 'FalsePositive'],
  Fixed: ['Reopened'],
  RiskAccepted: ['Open'],
  FalsePositive: ['Open'],
};

/** The least role that may move a finding into each state. */
export const ROLE_FOR_STATE: Record<FindingState, Role> = {
  Open: 'Analyst',
  Reopened: 'Analyst',
  Fixed: 'Analyst',
  FalsePositive: 'Analyst',
  RiskAccepted: 'Manager',
};

/** Longest a risk may be accepted before it must be looked at again. */
export const MAX_RISK_ACCEPTANCE_DAYS = 365;

/** The risk of a severity when no CVSS score is known. */
export const SEVERITY_RISK: Record<Severity, number> = {
  Critical: 95,
  High: 75,
  Medium: 50,
  Low: 25,
  Info: 0,
};

/**
 * Risk 0–100 until vulnerability intelligence refines it: the CVSS base score scaled to 100, or
 * the severity's typical value when no score is known.
 */
export function baseRiskScore(cvss3Score: number | null, severity: Severity): number {
  if (cvss3Score !== null && Number.isFinite(cvss3Score)) return Math.round(cvss3Score * 1000) / 100;
  return SEVERITY_RISK[severity];
}
