import { describe, expect, it } from 'vitest';
import { EVENT_TITLES, renderDigest, renderEvent } from '../../src/mail/templates.js';
import { EVENT_TYPES } from '../../src/modules/events/catalogue.js';

const BASE = 'https://rampart.example.com/prefix';

describe('email templates', () => {
  it('has a title for every event type of the catalogue, and no other', () => {
    expect(Object.keys(EVENT_TITLES).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('renders every type with a subject, a sentence and a link, escaping what the data holds', () => {
    for (const type of EVENT_TYPES) {
      const mail = renderEvent(
        {
          id: 'e1',
          type: `rampart.${type}`,
          time: '2026-11-21T12:00:00.000Z',
          data: {
            Finding: { Id: 'f1', Title: '<script>alert(1)</script>', Severity: 'High' },
            Scan: { Id: 's1', Kind: 'Web', Name: '<script>alert(1)</script>' },
            Import: { Id: 'i1', FileName: '<script>alert(1)</script>' },
            Ticket: { Id: 't1', Title: '<script>alert(1)</script>' },
          },
        },
        BASE,
      );
      expect(mail.subject).toMatch(/^\[Rampart\] /);
      expect(mail.subject).not.toMatch(/[\r\n]/);
      expect(mail.html).not.toContain('<script>');
      expect(mail.html).toContain('&lt;script&gt;');
      expect(mail.text).toContain(`${BASE}/`);
      expect(mail.html).toContain(`${BASE}/profile#notifications`);
    }
  });

  it('links each event to its page in the web app', () => {
    const link = (type: string, data: unknown) =>
      renderEvent({ id: 'x', type: `rampart.${type}`, data }, BASE).text;
    expect(link('finding.kev_found', { Finding: { Id: 'f/1', Title: 'CVE' } })).toContain(
      `${BASE}/findings/f%2F1`,
    );
    expect(link('scan.failed', { Scan: { Id: 's1', Kind: 'System', Name: 'DMZ' } })).toContain(
      `${BASE}/system-scans/s1`,
    );
    expect(link('scan.failed', { Scan: { Id: 's1', Kind: 'Web', Name: 'Shop' } })).toContain(
      `${BASE}/web-scans/s1`,
    );
    expect(link('import.failed', { Import: { Id: 'i1' } })).toContain(`${BASE}/imports/i1`);
    expect(link('ticket.assigned', { Ticket: { Id: 't1' } })).toContain(`${BASE}/tickets/t1`);
    expect(link('apikey.created', {})).toContain(`${BASE}/profile#api-keys`);
  });

  it('makes a digest of a day’s events grouped by type', () => {
    const mail = renderDigest(
      [
        {
          id: '1',
          type: 'rampart.scan.completed',
          data: { Scan: { Kind: 'Discovery', Id: 'a', Name: 'A' } },
        },
        {
          id: '2',
          type: 'rampart.scan.completed',
          data: { Scan: { Kind: 'Discovery', Id: 'b', Name: 'B' } },
        },
        { id: '3', type: 'rampart.finding.created', data: { Finding: { Id: 'f', Title: 'Old OpenSSH' } } },
      ],
      BASE,
      '2026-11-20',
      'Europe/Berlin',
    );
    expect(mail.subject).toBe('[Rampart] Daily digest for 2026-11-20: 3 events');
    expect(mail.text).toContain('What happened in Rampart on 2026-11-20 (Europe/Berlin)');
    expect(mail.text).toContain('Scan completed (2)');
    expect(mail.text).toContain('New finding (1)');
    expect(mail.text).toContain('* New finding “Old OpenSSH”.');
  });

  it('says what happened to a finding, with its asset, vulnerability and facts', () => {
    const finding = {
      Id: 'f1',
      Title: 'OpenSSH regreSSHion',
      Severity: 'Critical',
      State: 'Open',
      RiskScore: 97.5,
      Kev: true,
      DueAt: '2026-11-28T12:00:00.000Z',
      Asset: { Id: 'a1', Name: 'web-01' },
      Vulnerability: { Id: 'v1', Key: 'CVE-2024-6387' },
    };
    const kev = renderEvent({ id: '1', type: 'rampart.finding.kev_found', data: { Finding: finding } }, BASE);
    expect(kev.subject).toBe('[Rampart] Known exploited vulnerability found: OpenSSH regreSSHion');
    expect(kev.text).toContain(
      'A known exploited vulnerability (CVE-2024-6387) was found: Critical finding “OpenSSH regreSSHion” on web-01.',
    );
    expect(kev.text).toContain('Finding asset: web-01');
    expect(kev.text).toContain('Finding vulnerability: CVE-2024-6387');
    expect(kev.text).toContain('Finding risk score: 97.5');
    const late = renderEvent(
      { id: '2', type: 'rampart.finding.sla_breached', data: { Finding: finding, DueAt: finding.DueAt } },
      BASE,
    );
    expect(late.text).toContain(
      'The Critical finding “OpenSSH regreSSHion” on web-01 is past its SLA (due 2026-11-28T12:00:00.000Z).',
    );
    const role = renderEvent(
      {
        id: '3',
        type: 'rampart.user.role_changed',
        data: {
          User: { Id: 'u', Email: 'a@example.com', Name: 'Ada' },
          FromRole: 'Analyst',
          ToRole: 'Admin',
        },
      },
      BASE,
    );
    expect(role.text).toContain('The role of “Ada” changed from Analyst to Admin.');
  });
});
