import type { FindingState, Role } from '../../db/schema.js';

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
