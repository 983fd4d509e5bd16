import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MailError, Mailer } from '../../src/mail/mailer.js';
import { mailSettingsOf } from '../../src/mail/settings.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

const USER = { user: 'rampart', password: 'p@ss word:/ü' };

/** A mailer configured as the server's environment would configure it. */
function mailerFor(env: Record<string, string>, files: Record<string, string> = {}): Mailer {
  const config = loadConfig({ RAMPART_MAIL_FROM: 'Rampart <rampart@example.com>', ...env });
  return new Mailer(
    mailSettingsOf(config, (p) => {
      const text = files[p];
      if (text === undefined) throw new Error(`no file ${p}`);
      return text;
    }),
  );
}

const message = {
  to: ['soc@example.com', 'lead@example.com'],
  subject: 'Scan “Office” completed – 3 hosts',
  text: 'The scan completed.\nHosts: 3',
  html: '<p>The scan <strong>completed</strong>.</p>',
};

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('Mailer against a real SMTP server on loopback', () => {
  let starttls: TestSmtpServer;
  let implicit: TestSmtpServer;

  beforeAll(async () => {
    starttls = await startSmtpServer({ user: USER.user, password: USER.password });
    implicit = await startSmtpServer({ implicitTls: true, user: USER.user, password: USER.password });
  });
  afterAll(async () => {
    await starttls?.close();
    await implicit?.close();
  });

  it('sends over STARTTLS with AUTH, trusting the private CA, with both bodies', async () => {
    const mailer = mailerFor(
      {
        RAMPART_SMTP_URL: starttls.url(),
        RAMPART_SMTP_USER: USER.user,
        RAMPART_SMTP_PASSWORD: USER.password,
        RAMPART_SMTP_TLS_CA: '/etc/rampart/smtp-ca.pem',
      },
      { '/etc/rampart/smtp-ca.pem': starttls.cert.cert },
    );
    expect(mailer.configured).toBe(true);
    expect(mailer.server).toBe(`smtp://localhost:${starttls.port}`);
    const sent = await mailer.send(message);
    expect(sent.accepted).toEqual(['soc@example.com', 'lead@example.com']);
    const [mail] = await starttls.waitFor(1);
    expect(mail).toMatchObject({
      from: 'rampart@example.com',
      to: ['soc@example.com', 'lead@example.com'],
      user: USER.user,
      secure: true,
      subject: 'Scan “Office” completed – 3 hosts',
    });
    expect(mail!.headers.from).toBe('Rampart <rampart@example.com>');
    expect(mail!.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(mail!.text.trim()).toBe('The scan completed.\nHosts: 3');
    expect(mail!.html.trim()).toBe('<p>The scan <strong>completed</strong>.</p>');
  });

  it('sends with TLS from the start (smtps://), the credentials in the URL', async () => {
    const before = implicit.received.length;
    const mailer = mailerFor(
      { RAMPART_SMTP_URL: implicit.url(USER), RAMPART_SMTP_TLS_CA: 'ca.pem' },
      { 'ca.pem': implicit.cert.cert },
    );
    await mailer.send({ ...message, to: 'one@example.com' });
    const mail = (await implicit.waitFor(before + 1))[before]!;
    expect(mail).toMatchObject({ to: ['one@example.com'], user: USER.user, secure: true });
  });

  it('refuses an unknown certificate, saying what to set', async () => {
    const mailer = mailerFor({ RAMPART_SMTP_URL: starttls.url(USER) });
    const error = await mailer.send(message).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailError);
    expect(error).toMatchObject({ kind: 'TlsFailed', retryable: true });
    expect((error as Error).message).toMatch(
      /^TLS with the SMTP server smtp:\/\/localhost:\d+ failed \(.*certificate.*\): for a private CA set RAMPART_SMTP_TLS_CA/,
    );
    // Accepting any certificate is the operator's explicit choice.
    const lax = mailerFor({
      RAMPART_SMTP_URL: starttls.url(USER),
      RAMPART_SMTP_TLS_REJECT_UNAUTHORIZED: 'false',
    });
    await expect(lax.send(message)).resolves.toMatchObject({ accepted: message.to });
  });

  it('says the user name and password were refused (535), without the password', async () => {
    const mailer = mailerFor(
      {
        RAMPART_SMTP_URL: starttls.url({ user: USER.user, password: 'wrong-secret' }),
        RAMPART_SMTP_TLS_CA: 'ca',
      },
      { ca: starttls.cert.cert },
    );
    const error = (await mailer.send(message).catch((e: unknown) => e)) as MailError;
    expect(error).toMatchObject({ kind: 'AuthRefused', responseCode: 535 });
    expect(error.message).toMatch(
      /^The SMTP server smtp:\/\/localhost:\d+ refused the user name and password \(535 5\.7\.8 Authentication credentials invalid\): check RAMPART_SMTP_USER and RAMPART_SMTP_PASSWORD\.$/,
    );
    expect(error.message).not.toContain('wrong-secret');
  });

  it('says the server is down when nothing listens (ECONNREFUSED)', async () => {
    const port = await closedPort();
    const mailer = mailerFor({
      RAMPART_SMTP_URL: `smtp://${encodeURIComponent('u')}:secret@127.0.0.1:${port}`,
    });
    const error = (await mailer.send(message).catch((e: unknown) => e)) as MailError;
    expect(error).toBeInstanceOf(MailError);
    expect(error.kind).toBe('ConnectionFailed');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      `The SMTP server smtp://127.0.0.1:${port} refused the connection: is it running, and is RAMPART_SMTP_URL right?`,
    );
  });

  it('will not send a password in the clear: STARTTLS is required with one unless the URL says offered', async () => {
    // A server without TLS at all: smtp-server with STARTTLS hidden.
    const { SMTPServer } = await import('smtp-server');
    const plain = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      logger: false,
      onData: (s, _session, cb) => {
        s.resume();
        s.on('end', () => cb());
      },
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
    const port = (plain.server.address() as { port: number }).port;
    try {
      const strict = mailerFor({ RAMPART_SMTP_URL: `smtp://u:p@127.0.0.1:${port}` });
      await expect(strict.send(message)).rejects.toMatchObject({ kind: 'TlsFailed' });
      const relay = mailerFor({ RAMPART_SMTP_URL: `smtp://127.0.0.1:${port}` });
      await expect(relay.send(message)).resolves.toMatchObject({ accepted: message.to });
    } finally {
      await new Promise<void>((r) => plain.close(() => r()));
    }
  });

  it('is "not configured" without RAMPART_SMTP_URL, and says what to set', async () => {
    const mailer = new Mailer(mailSettingsOf(loadConfig({}), () => ''));
    expect(mailer.configured).toBe(false);
    await expect(mailer.send(message)).rejects.toMatchObject({
      kind: 'NotConfigured',
      message: 'Email is not configured: set RAMPART_SMTP_URL and RAMPART_MAIL_FROM on the server.',
    });
  });
});

describe('mail configuration', () => {
  it.each([
    [{ RAMPART_SMTP_URL: 'http://mail.example.com' }, 'RAMPART_SMTP_URL: must match'],
    [{ RAMPART_SMTP_URL: 'smtp://mail.example.com' }, 'RAMPART_MAIL_FROM must be set with RAMPART_SMTP_URL'],
    [
      { RAMPART_SMTP_URL: 'smtp://mail.example.com?starttls=maybe', RAMPART_MAIL_FROM: 'a@b.c' },
      'RAMPART_SMTP_URL starttls=maybe is neither required nor offered',
    ],
    [
      { RAMPART_SMTP_URL: 'smtps://mail.example.com?starttls=required', RAMPART_MAIL_FROM: 'a@b.c' },
      'starttls applies to smtp:// only',
    ],
    [{ RAMPART_SMTP_TLS_REJECT_UNAUTHORIZED: 'perhaps' }, 'must be true or false'],
  ])('refuses %j naming the variable', (env, text) => {
    expect(() => loadConfig(env)).toThrow(text);
  });

  it('never echoes the password of a refused URL', () => {
    expect(() => loadConfig({ RAMPART_SMTP_URL: 'smtp://u:hunter2@mail.example.com?x=1' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });

  it('reads ports, STARTTLS and credentials from the URL, the variables taking precedence', () => {
    const config = loadConfig({
      RAMPART_SMTP_URL: 'smtp://url-user:url%20pass@mail.example.com',
      RAMPART_SMTP_PASSWORD: 'from-variable',
      RAMPART_MAIL_FROM: 'rampart@example.com',
    });
    expect(mailSettingsOf(config, () => '')).toMatchObject({
      host: 'mail.example.com',
      port: 587,
      implicitTls: false,
      starttls: 'required',
      user: 'url-user',
      password: 'from-variable',
    });
    const relay = loadConfig({ RAMPART_SMTP_URL: 'smtp://relay:25', RAMPART_MAIL_FROM: 'a@b.c' });
    expect(mailSettingsOf(relay, () => '')).toMatchObject({ port: 25, starttls: 'offered', user: null });
    const tls = loadConfig({ RAMPART_SMTP_URL: 'smtps://mail.example.com', RAMPART_MAIL_FROM: 'a@b.c' });
    expect(mailSettingsOf(tls, () => '')).toMatchObject({ port: 465, implicitTls: true });
  });
});
