import type { FindingState, Role } from '../../db/schema.js';

/** Where a finding may go from each state by a person's decision (scans decide Fixed/Reopened too). */
export const TRANSITIONS: Record<FindingState, readonly FindingState[]> = {
  Open: ['Fixed', 'RiskAccepted', 'FalsePositive'],
  Reopened: ['Fixed', 'RiskAccepted', 'FalsePositive'],
  Fixed: ['Reopened'],
  RiskAccepted: ['Open'],
  FalsePositive: ['Open'],
};

/** Every state a finding can be in. */
export const FINDING_STATES = Object.keys(TRANSITIONS) as FindingState[];

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

// ---- what scans decide ----
// The import merge (set-based SQL, import-repository.ts) and a finding recorded by hand
// (FindingService.record) both build on these functions: a rule changes here only.

/** A decision a scanner's report may carry for a finding (VEX, a tool's own override). */
export const REPORTED_STATES = [
  'Fixed',
  'FalsePositive',
  'RiskAccepted',
] as const satisfies readonly FindingState[];
export type ReportedState = (typeof REPORTED_STATES)[number];

/** A change a scan makes to a finding: its new state and what becomes of its state reason. */
export interface ScanChange {
  state: FindingState;
  /** 'reported': the report's reason replaces it; 'cleared': it is emptied. */
  reason: 'reported' | 'cleared';
}

/** The states a scan still speaks for; RiskAccepted and FalsePositive are people's decisions. */
const OPEN_STATES: readonly FindingState[] = ['Open', 'Reopened'];

/** The state of a finding a scan reports for the first time: the report's decision, else Open. */
export function stateWhenFirstSeen(reported: ReportedState | null): FindingState {
  return reported ?? 'Open';
}

/**
 * A known finding a scan reports again: Fixed comes back as Reopened (unless the report says it
 * is fixed); an open one takes the decision the report carries; anything else stays.
 */
export function changeWhenSeenAgain(
  current: FindingState,
  reported: ReportedState | null,
): ScanChange | null {
  if (current === 'Fixed') return reported === 'Fixed' ? null : { state: 'Reopened', reason: 'cleared' };
  if (OPEN_STATES.includes(current) && reported) return { state: reported, reason: 'reported' };
  return null;
}

/** A finding last reported in a scan's scope that the scan no longer shows: open ones are Fixed. */
export function changeWhenNotSeenAgain(current: FindingState): ScanChange | null {
  return OPEN_STATES.includes(current) ? { state: 'Fixed', reason: 'cleared' } : null;
}

/** A finding's fixed date: set when it becomes Fixed, cleared when it leaves Fixed, else kept. */
export function fixedAtChange(from: FindingState | null, to: FindingState): 'set' | 'clear' | 'keep' {
  if (to === 'Fixed') return from === 'Fixed' ? 'keep' : 'set';
  return from === 'Fixed' ? 'clear' : 'keep';
}

/** The history's reason for a state change a scan made, by the state it led to. */
export function scanChangeReason(to: FindingState, source: string): string {
  if (to === 'Fixed') return `Not seen again (${source})`;
  if (to === 'Reopened') return `Seen again (${source})`;
  return `Reported by ${source}`;
}
