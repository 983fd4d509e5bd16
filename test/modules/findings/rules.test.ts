import { describe, expect, it } from 'vitest';
import {
  changeWhenNotSeenAgain,
  changeWhenSeenAgain,
  FINDING_STATES,
  fixedAtChange,
  REPORTED_STATES,
  scanChangeReason,
  stateWhenFirstSeen,
} from '../../../src/modules/findings/rules.js';

// What scans decide, as one table: the import merge builds its SQL from these functions and a
// finding recorded by hand uses them too (the merge itself: test/modules/imports/reported-states).
describe('scan rules', () => {
  it('a new finding takes the report’s decision, else Open', () => {
    expect(stateWhenFirstSeen(null)).toBe('Open');
    for (const reported of REPORTED_STATES) expect(stateWhenFirstSeen(reported)).toBe(reported);
  });

  it('seen again: Fixed comes back Reopened, open ones take the report’s decision, people’s decisions stay', () => {
    const table = Object.fromEntries(
      FINDING_STATES.map((from) => [
        from,
        [null, ...REPORTED_STATES].map((reported) => changeWhenSeenAgain(from, reported)?.state ?? '-'),
      ]),
    );
    // Columns: nothing reported, then Fixed, FalsePositive, RiskAccepted reported.
    expect(table).toEqual({
      Open: ['-', 'Fixed', 'FalsePositive', 'RiskAccepted'],
      Reopened: ['-', 'Fixed', 'FalsePositive', 'RiskAccepted'],
      Fixed: ['Reopened', '-', 'Reopened', 'Reopened'],
      RiskAccepted: ['-', '-', '-', '-'],
      FalsePositive: ['-', '-', '-', '-'],
    });
    expect(changeWhenSeenAgain('Fixed', null)?.reason).toBe('cleared');
    expect(changeWhenSeenAgain('Open', 'FalsePositive')?.reason).toBe('reported');
  });

  it('not seen again: open findings become Fixed, nothing else changes', () => {
    expect(FINDING_STATES.filter((s) => changeWhenNotSeenAgain(s)?.state === 'Fixed')).toEqual([
      'Open',
      'Reopened',
    ]);
    expect(FINDING_STATES.filter((s) => changeWhenNotSeenAgain(s) === null)).toEqual([
      'Fixed',
      'RiskAccepted',
      'FalsePositive',
    ]);
  });

  it('the fixed date is set on becoming Fixed and cleared on leaving it', () => {
    expect(fixedAtChange('Open', 'Fixed')).toBe('set');
    expect(fixedAtChange(null, 'Fixed')).toBe('set');
    expect(fixedAtChange('Fixed', 'Reopened')).toBe('clear');
    expect(fixedAtChange('Fixed', 'Fixed')).toBe('keep');
    expect(fixedAtChange('Open', 'RiskAccepted')).toBe('keep');
  });

  it('the history says why a scan changed a finding', () => {
    expect(scanChangeReason('Fixed', 'Nessus')).toBe('Not seen again (Nessus)');
    expect(scanChangeReason('Reopened', 'Nessus')).toBe('Seen again (Nessus)');
    expect(scanChangeReason('FalsePositive', 'Grype')).toBe('Reported by Grype');
  });
});
