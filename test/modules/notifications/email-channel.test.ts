import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { Mailer } from '../../../src/mail/mailer.js';
import { mailSettingsOf } from '../../../src/mail/settings.js';
import { addressesOf, emailChannel, mailtoOf } from '../../../src/modules/emailnotifications/channel.js';
import type { ChannelTarget, NotificationEvent } from '../../../src/modules/notifications/types.js';
import { closedPort, smtpEnv, startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

const target = (url: string): ChannelTarget => ({
  organizationId: '0193a5c4-0000-7000-8000-000000000001',
  endpointId: '0193a5c4-0000-7000-8000-000000000002',
  endpointName: 'SOC mailbox',
  kind: 'Email',
  url,
  secret: null,
  deliveryId: '0193a5c4-0000-7000-8000-000000000003',
  attempt: 1,
});

const scanEvent = (type: string, name: string): NotificationEvent => ({
  specversion: '1.0',
  id: `0193a5c4-0000-7000-8000-0000000001${type.length}`,
  source: '/rampart',
  type: `rampart.${type}`,
  time: '2026-11-21T12:00:00.000Z',
  datacontenttype: 'application/json',
  data: {
    Scan: { Kind: 'Discovery', Id: '0193a5c4-7f10-7c3e-9d41-0000000000aa', Name: name, ScanGroupId: null },
    Run: { Id: 'r', Attempt: 1, State: 'Running' },
  },
});

const mailerOf = (env: Record<string, string>) =>
  new Mailer(mailSettingsOf(loadConfig(env), (p) => readFileSync(p, 'utf8')));

describe('the Email notification channel', () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it('reads and checks an Email endpoint’s mailto: addresses', async () => {
    expect(addressesOf('mailto:SOC@example.com, lead@example.com,soc@example.com')).toEqual([
      'soc@example.com',
      'lead@example.com',
    ]);
    expect(mailtoOf(['SOC@example.com', 'b@example.org'])).toBe('mailto:soc@example.com,b@example.org');
    const channel = emailChannel(mailerOf({}), 'https://rampart.example.com');
    expect(await channel.checkDestination!('mailto:soc@example.com')).toBeNull();
    expect(await channel.checkDestination!('https://example.com')).toEqual({
      rule: 'EmailAddress',
      message: 'An Email endpoint’s address is a mailto: URL, e.g. mailto:soc@example.com.',
    });
    expect(await channel.checkDestination!('mailto:soc@example.com,not-an-address')).toMatchObject({
      message: "'not-an-address' is not an email address.",
    });
    expect(await channel.checkDestination!('mailto:')).toMatchObject({
      message: 'The mailto: URL names no address.',
    });
  });

  it('delivers one event as one email to every address, over STARTTLS with AUTH', async () => {
    const channel = emailChannel(mailerOf(await smtpEnv(smtp)), 'https://rampart.example.com');
    const outcome = await channel.deliver(
      target('mailto:soc@example.com,lead@example.com'),
      [scanEvent('scan.completed', 'Office')],
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ ok: true, status: 250 });
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({
      to: ['soc@example.com', 'lead@example.com'],
      subject: '[Rampart] Scan completed: Office',
      secure: true,
      user: 'rampart',
    });
    expect(mail!.text).toContain('The discovery scan “Office” completed.');
    expect(mail!.html).toContain(
      'https://rampart.example.com/discovery/0193a5c4-7f10-7c3e-9d41-0000000000aa',
    );
  });

  it('delivers several events in one email listing them', async () => {
    const channel = emailChannel(mailerOf(await smtpEnv(smtp)), 'https://rampart.example.com');
    const before = smtp.received.length;
    const outcome = await channel.deliver(
      target('mailto:soc@example.com'),
      [scanEvent('scan.started', 'A'), scanEvent('scan.completed', 'A')],
      new AbortController().signal,
    );
    expect(outcome.ok).toBe(true);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    expect(mail.subject).toBe('[Rampart] 2 events for SOC mailbox');
    expect(mail.text).toContain('Scan started (1)');
    expect(mail.text).toContain('Scan completed (1)');
  });

  it('fails an attempt with the reason when the server is down or refuses the password, never throwing', async () => {
    const port = await closedPort();
    const down = emailChannel(
      mailerOf({ ...(await smtpEnv(smtp)), RAMPART_SMTP_URL: `smtp://127.0.0.1:${port}` }),
      'https://r.example',
    );
    const outcome = await down.deliver(
      target('mailto:soc@example.com'),
      [scanEvent('scan.failed', 'X')],
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: `The SMTP server smtp://127.0.0.1:${port} refused the connection: is it running, and is RAMPART_SMTP_URL right?`,
    });
    expect(outcome.permanent).toBeUndefined();
    const refused = emailChannel(
      mailerOf(await smtpEnv(smtp, { user: 'rampart', password: 'nope' })),
      'https://r.example',
    );
    const denied = await refused.deliver(
      target('mailto:soc@example.com'),
      [scanEvent('scan.failed', 'X')],
      new AbortController().signal,
    );
    expect(denied).toMatchObject({ ok: false, status: 535 });
    expect(denied.error).toMatch(/refused the user name and password/);
  });

  it('waits, saying so, while email is not configured', async () => {
    const channel = emailChannel(mailerOf({}), 'https://r.example');
    const outcome = await channel.deliver(
      target('mailto:soc@example.com'),
      [scanEvent('scan.failed', 'X')],
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({
      ok: false,
      error:
        'Email is not configured: set RAMPART_SMTP_URL and RAMPART_MAIL_FROM on the server. The delivery waits.',
      retryAfterMs: 900_000,
    });
  });
});
