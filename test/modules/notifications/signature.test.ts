import { describe, expect, it } from 'vitest';
import { slackMessage, summarize, teamsMessage } from '../../../src/modules/notifications/formats.js';
import { facetsOf, passesFilters } from '../../../src/modules/notifications/rules.js';
import {
  newSigningSecret,
  signatureHeader,
  signatureOf,
  verifySignature,
} from '../../../src/modules/notifications/signature.js';
import type { NotificationEvent, RuleFilters } from '../../../src/modules/notifications/types.js';

const at = new Date('2026-11-21T12:00:00Z');
const t = Math.floor(at.getTime() / 1000);

describe('webhook signatures', () => {
  const secret = newSigningSecret();
  const body = '{"specversion":"1.0","id":"x"}';

  it('signs "<t>.<body>" with HMAC-SHA256 and verifies it as a receiver would', () => {
    const header = signatureHeader(secret, at, body);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(header).toBe(`t=${t},v1=${signatureOf(secret, t, body)}`);
    expect(verifySignature(secret, header, body, new Date(at.getTime() + 60_000))).toEqual({
      ok: true,
      timestamp: t,
    });
  });

  it('refuses a changed body, another secret, an old timestamp and a malformed header', () => {
    const header = signatureHeader(secret, at, body);
    expect(verifySignature(secret, header, `${body} `, at)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no signature matches'),
    });
    expect(verifySignature(newSigningSecret(), header, body, at).ok).toBe(false);
    // Replayed six minutes later: beyond the five-minute tolerance.
    expect(verifySignature(secret, header, body, new Date(at.getTime() + 6 * 60_000))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('beyond 300 s'),
    });
    expect(verifySignature(secret, undefined, body, at).ok).toBe(false);
    expect(verifySignature(secret, `v1=${signatureOf(secret, t, body)}`, body, at).ok).toBe(false);
    expect(verifySignature(secret, `t=${t}`, body, at).ok).toBe(false);
  });

  it('accepts any of several v1 signatures (a secret being rotated)', () => {
    const header = `t=${t},v1=${signatureOf('old', t, body)},v1=${signatureOf(secret, t, body)}`;
    expect(verifySignature(secret, header, body, at).ok).toBe(true);
  });

  it('makes a new random secret each time', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newSigningSecret()).not.toBe(a);
  });
});

const findingEvent: NotificationEvent = {
  specversion: '1.0',
  id: '01900000-0000-7000-8000-0000000000aa',
  source: '/rampart/organizations/x',
  type: 'rampart.finding.created',
  time: at.toISOString(),
  data: {
    Finding: {
      Id: '01900000-0000-7000-8000-0000000000bb',
      Title: 'OpenSSL <script>',
      Severity: 'Critical',
      Asset: { Id: '01900000-0000-7000-8000-0000000000cc', Name: 'web-01' },
    },
  },
};

describe('Slack and Teams messages', () => {
  it('say one sentence per event with a link to the web app', () => {
    const s = summarize(findingEvent, 'https://rampart.example.com');
    expect(s).toEqual({
      title: 'Finding created',
      text: 'Critical finding “OpenSSL <script>” on web-01 was found.',
      link: 'https://rampart.example.com/findings/01900000-0000-7000-8000-0000000000bb',
    });
    const slack = slackMessage([findingEvent], 'https://rampart.example.com') as {
      text: string;
      blocks: { type: string; text: { text: string } }[];
    };
    expect(slack.text).toBe(s.text);
    expect(slack.blocks[1]?.text.text).toContain('OpenSSL &lt;script&gt;');
    expect(slack.blocks[1]?.text.text).toContain(
      '<https://rampart.example.com/findings/01900000-0000-7000-8000-0000000000bb|Open in Rampart>',
    );
    const teams = teamsMessage([findingEvent], 'https://rampart.example.com') as {
      type: string;
      attachments: {
        contentType: string;
        content: { type: string; body: { text: string }[]; actions: { url: string }[] };
      }[];
    };
    expect(teams.type).toBe('message');
    expect(teams.attachments[0]?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(teams.attachments[0]?.content.type).toBe('AdaptiveCard');
    expect(teams.attachments[0]?.content.body[1]?.text).toBe(s.text);
    expect(teams.attachments[0]?.content.actions[0]?.url).toBe(s.link);
  });

  it('describe scans, imports and unknown types too', () => {
    const scan = summarize(
      {
        ...findingEvent,
        type: 'rampart.scan.failed',
        data: { Scan: { Kind: 'System', Id: 'abc', Name: 'DMZ' }, Error: 'node lost' },
      },
      'http://r',
    );
    expect(scan).toEqual({
      title: 'Scan failed',
      text: 'System scan “DMZ” failed: node lost',
      link: 'http://r/system-scans/abc',
    });
    expect(summarize({ ...findingEvent, type: 'rampart.something.new', data: {} }, 'http://r').text).toBe(
      'Rampart event something.new.',
    );
  });
});

describe('rule filters', () => {
  const none: RuleFilters = {
    minSeverity: null,
    kevOnly: false,
    riskAbove: null,
    tag: null,
    scanGroupId: null,
    assetId: null,
    scanId: null,
  };
  const group = '01900000-0000-7000-8000-000000000001';
  const asset = '01900000-0000-7000-8000-000000000002';

  it('passes every event when no filter is set', () => {
    expect(passesFilters(none, {})).toBe(true);
  });

  it('keeps events of the minimum severity or worse', () => {
    const high = { ...none, minSeverity: 'High' as const };
    expect(passesFilters(high, { severity: 'Critical' })).toBe(true);
    expect(passesFilters(high, { severity: 'High' })).toBe(true);
    expect(passesFilters(high, { severity: 'Medium' })).toBe(false);
    // An event without a severity (a scan's) does not pass a severity filter.
    expect(passesFilters(high, {})).toBe(false);
  });

  it('keeps KEV findings, risk above a score, a tag, a scan group, an asset', () => {
    expect(passesFilters({ ...none, kevOnly: true }, { kev: true })).toBe(true);
    expect(passesFilters({ ...none, kevOnly: true }, { kev: false })).toBe(false);
    expect(passesFilters({ ...none, riskAbove: 70 }, { riskScore: 70.5 })).toBe(true);
    expect(passesFilters({ ...none, riskAbove: 70 }, { riskScore: 70 })).toBe(false);
    expect(passesFilters({ ...none, riskAbove: 70 }, {})).toBe(false);
    expect(passesFilters({ ...none, tag: 'PCI' }, { tags: ['dmz', 'pci'] })).toBe(true);
    expect(passesFilters({ ...none, tag: 'pci' }, { tags: ['dmz'] })).toBe(false);
    expect(passesFilters({ ...none, scanGroupId: group }, { scanGroupIds: [group] })).toBe(true);
    expect(passesFilters({ ...none, scanGroupId: group }, { scanGroupIds: [] })).toBe(false);
    expect(passesFilters({ ...none, assetId: asset }, { assetIds: [asset] })).toBe(true);
    expect(passesFilters({ ...none, assetId: asset }, { assetIds: [group] })).toBe(false);
  });

  it('keeps one scan’s events (a rule a scan owns), reading the scan from a scan event’s data', () => {
    const scan = '01900000-0000-7000-8000-000000000003';
    const event = (id: string, groupId: string | null = null) => ({
      type: 'scan.started',
      data: { Scan: { Kind: 'Discovery', Id: id, Name: 'x', ScanGroupId: groupId } },
      facets: {},
    });
    expect(passesFilters({ ...none, scanId: scan }, facetsOf(event(scan)))).toBe(true);
    expect(passesFilters({ ...none, scanId: scan }, facetsOf(event(asset)))).toBe(false);
    expect(passesFilters({ ...none, scanGroupId: group }, facetsOf(event(asset, group)))).toBe(true);
    // A finding event says nothing of a scan.
    expect(
      passesFilters({ ...none, scanId: scan }, facetsOf({ type: 'finding.created', data: {}, facets: {} })),
    ).toBe(false);
  });

  it('asks every filter set to hold', () => {
    const both = { ...none, minSeverity: 'High' as const, kevOnly: true };
    expect(passesFilters(both, { severity: 'Critical', kev: true })).toBe(true);
    expect(passesFilters(both, { severity: 'Critical', kev: false })).toBe(false);
    expect(passesFilters(both, { severity: 'Low', kev: true })).toBe(false);
  });
});
