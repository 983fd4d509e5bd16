import { describe, expect, it } from 'vitest';
import { DATE_STYLE, dayExample, formatDay, parseDay } from '../../web/src/dates.js';
import {
  eventSentence,
  FINDING_STATE_LABELS,
  findingStateLabel,
  humanise,
  roleLabel,
  TICKET_STATE_LABELS,
  ticketStateLabel,
} from '../../web/src/labels.js';

describe('the web app writes and reads days in one style', () => {
  it('writes a day the way its tables do', () => {
    expect(formatDay('2026-11-24', 'en-US')).toBe('Nov 24, 2026');
    expect(formatDay('2026-11-24', 'en-GB')).toBe('24 Nov 2026');
    expect(formatDay('2026-11-24', 'de-DE')).toBe('24.11.2026');
    // A table's date of that day, written with the same style.
    const table = new Intl.DateTimeFormat('en-US', { ...DATE_STYLE, timeZone: 'UTC' });
    expect(formatDay('2026-11-24', 'en-US')).toBe(table.format(Date.UTC(2026, 10, 24)));
    expect(formatDay('', 'en-US')).toBe('');
    expect(formatDay('soon', 'en-US')).toBe('');
  });

  it('shows today as the sample day of date fields, never a fixed day that falls into the past', () => {
    // A fixed sample (Nov 24, 2026) read as a due date in the past once that day went by.
    expect(dayExample('en-US', new Date(2031, 2, 7, 23, 30))).toBe('Mar 7, 2031');
    expect(dayExample('en-GB', new Date(2027, 0, 1, 0, 5))).toBe('1 Jan 2027');
    const today = new Date();
    expect(parseDay(dayExample('en-US'), 'en-US')).toBe(
      `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`,
    );
  });

  it('reads what it writes, in every locale, and ISO 8601', () => {
    for (const locale of [
      'en-US',
      'en-GB',
      'de-DE',
      'fr-FR',
      'es-ES',
      'pt-BR',
      'ja-JP',
      'zh-CN',
      'fi-FI',
      'nl-NL',
    ])
      for (const day of ['2026-11-24', '2024-02-29', '2027-01-05', '2026-05-09'])
        expect(parseDay(formatDay(day, locale), locale), `${locale} ${formatDay(day, locale)}`).toBe(day);
    expect(parseDay('2026-11-24', 'en-US')).toBe('2026-11-24');
    expect(parseDay(' 2026-3-7 ', 'de-DE')).toBe('2026-03-07');
  });

  it('reads the month by name, long or short, in any order, in any case', () => {
    expect(parseDay('November 24, 2026', 'en-US')).toBe('2026-11-24');
    expect(parseDay('24 nov 2026', 'en-US')).toBe('2026-11-24');
    expect(parseDay('NOV 24 2026', 'en-US')).toBe('2026-11-24');
    expect(parseDay('Sept 1, 2026', 'en-GB')).toBe('2026-09-01');
    expect(parseDay('24. November 2026', 'de-DE')).toBe('2026-11-24');
    expect(parseDay('24 nov. 2026', 'fr-FR')).toBe('2026-11-24');
  });

  it('refuses what is no day, or could be two', () => {
    for (const [text, locale] of [
      ['', 'en-US'],
      ['tomorrow', 'en-US'],
      ['11/24/2026', 'en-US'], // all numbers where the style names the month: ambiguous
      ['24/11/2026', 'en-GB'],
      ['Feb 30, 2026', 'en-US'],
      ['2026-02-29', 'en-US'],
      ['2026-13-01', 'en-US'],
      ['Nov 2026', 'en-US'],
      ['Nov 24', 'en-US'],
      ['Nov 24, 26', 'en-US'],
      ['Nov Dec 24, 2026', 'en-US'],
      ['Nov 24, 2026 at noon', 'en-US'],
      ['24.11.26', 'de-DE'],
      ['31.11.2026', 'de-DE'],
      ['Nov 124, 2026', 'en-US'],
      ['Nov 24, 20266', 'en-US'],
    ] as const)
      expect(parseDay(text, locale), `${locale} "${text}"`).toBeUndefined();
  });
});

describe('the web app labels internal names', () => {
  it('has a label for every state, in words', () => {
    expect(ticketStateLabel('InProgress')).toBe('In progress');
    expect(findingStateLabel('RiskAccepted')).toBe('Risk accepted');
    expect(findingStateLabel('FalsePositive')).toBe('False positive');
    expect(roleLabel('ReadOnly')).toBe('Read-only');
    for (const label of [...Object.values(FINDING_STATE_LABELS), ...Object.values(TICKET_STATE_LABELS)])
      expect(label).not.toMatch(/[a-z][A-Z]|_/);
  });

  it('turns names no map knows into words, keeping acronyms', () => {
    expect(humanise('findings_linked')).toBe('Findings linked');
    expect(humanise('SomeNewState')).toBe('Some new state');
    expect(humanise('CVEImported')).toBe('CVE imported');
    expect(humanise('OS')).toBe('OS');
    expect(humanise('')).toBe('');
  });

  it('tells history events as sentences', () => {
    const event = (Kind: string, FromState: string | null = null, ToState: string | null = null) => ({
      Kind,
      FromState,
      ToState,
    });
    expect(eventSentence(event('findings_linked'), 'ticket')).toBe('Findings added to the ticket');
    expect(eventSentence(event('findings_unlinked'), 'ticket')).toBe('Findings removed from the ticket');
    expect(eventSentence(event('state_changed', 'Open', 'InProgress'), 'ticket')).toBe(
      'State changed from Open to In progress',
    );
    expect(eventSentence(event('state_changed', 'Open', 'RiskAccepted'), 'finding')).toBe(
      'State changed from Open to Risk accepted',
    );
    expect(eventSentence(event('created', null, 'Open'), 'finding')).toBe('First reported');
    expect(eventSentence(event('created', null, 'FalsePositive'), 'finding')).toBe(
      'First reported, as false positive',
    );
    expect(eventSentence(event('created', null, 'Open'), 'ticket')).toBe('Ticket created');
    expect(eventSentence(event('severity_overridden'), 'finding')).toBe('Severity overridden');
    expect(eventSentence(event('assignee_changed'), 'ticket')).toBe('Assignee changed');
    for (const kind of ['created', 'state_changed', 'updated', 'findings_linked', 'something_else'])
      expect(eventSentence(event(kind, 'InProgress', 'Resolved'), 'ticket')).not.toMatch(/_|[a-z][A-Z]/);
  });
});
