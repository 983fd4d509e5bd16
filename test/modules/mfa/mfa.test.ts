import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/db/schema.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import { matchTotp, stepAt, TOTP_PERIOD_SECONDS, totpCode } from '../../../src/modules/mfa/totp.js';
import { AppError } from '../../../src/problems/app-error.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp, TestClock } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const PASSWORD = 'a passphrase and a phone';
const PROBLEMS = 'https://rampart.dev/problems/';

describe.each(DB_KINDS)('multi-factor sign-in [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;
  const clock = new TestClock();
  let n = 0;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      clock,
      env: {
        RAMPART_LOGIN_THROTTLE_LIMIT: '8',
        RAMPART_LOGIN_THROTTLE_ACCOUNT_LIMIT: '12',
        RAMPART_LOGIN_THROTTLE_ADDRESS_LIMIT: '40',
        RAMPART_LOGIN_THROTTLE_WINDOW: '300',
      },
    });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  interface Person {
    id: string;
    email: string;
    ip: string;
  }

  /** A fresh password user (own throttle budget) at a fresh address. */
  async function person(role: Role = 'Analyst'): Promise<Person> {
    n += 1;
    const email = `mfa-person${n}@example.com`;
    const user = await t.services.users.create(ctx, { email, role, password: PASSWORD });
    return { id: user.id, email, ip: `127.0.20.${n}` };
  }

  const post = (url: string, body: unknown, ip = '127.0.21.1', headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/api/latest${url}`,
      remoteAddress: ip,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
    });
  const passwordStep = (p: Person, password = PASSWORD) =>
    post('/session', { Email: p.email, Password: password }, p.ip);
  const cookieOf = (res: LightMyRequestResponse) => String(res.headers['set-cookie']).split(';')[0]!;
  const browserOf = (res: LightMyRequestResponse) => ({
    cookie: cookieOf(res),
    'x-csrf-token': res.json().CsrfToken as string,
  });
  const whoAmI = (cookie: string) =>
    t.app.inject({ method: 'GET', url: '/api/latest/session', headers: { cookie } });
  const expectProblem = (res: LightMyRequestResponse, status: number, slug: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().type).toBe(`${PROBLEMS}${slug}`);
    expect(res.headers['set-cookie']).toBeUndefined();
  };
  /** The next 30-second step: a code of it was not used yet. */
  const nextStep = () => {
    clock.now = new Date(clock.now.getTime() + TOTP_PERIOD_SECONDS * 1000);
  };
  const code = (secret: string) => totpCode(secret, clock.now);

  /** Signs a user without a factor in: the headers their browser then sends. */
  async function signedIn(p: Person) {
    const res = await passwordStep(p);
    expect(res.statusCode, res.body).toBe(200);
    return browserOf(res);
  }

  /** Sets a factor up in My profile; the secret and the recovery codes. */
  async function enrol(p: Person) {
    const browser = await signedIn(p);
    const started = await post('/account/mfa/enrolment', {}, p.ip, browser);
    expect(started.statusCode, started.body).toBe(200);
    const secret = started.json().Secret as string;
    const confirmed = await post('/account/mfa/enrolment/confirm', { Code: code(secret) }, p.ip, browser);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    return { secret, recoveryCodes: confirmed.json().RecoveryCodes as string[], browser };
  }

  it('computes the codes of RFC 6238 (SHA-1 test vectors) and accepts one step either side, no more', () => {
    // The RFC's key, "12345678901234567890", in base32; its codes cut to 6 digits.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(totpCode(secret, new Date(59_000))).toBe('287082');
    expect(totpCode(secret, new Date(1_111_111_109_000))).toBe('081804');
    expect(totpCode(secret, new Date(1_234_567_890_000))).toBe('005924');
    expect(totpCode(secret, new Date(2_000_000_000_000))).toBe('279037');
    const at = new Date(1_234_567_890_000);
    const step = stepAt(at);
    expect(matchTotp(secret, '005924', at)).toBe(step);
    expect(matchTotp(secret, '005 924', at)).toBe(step);
    expect(matchTotp(secret, totpCode(secret, new Date(at.getTime() - 30_000)), at)).toBe(step - 1);
    expect(matchTotp(secret, totpCode(secret, new Date(at.getTime() + 30_000)), at)).toBe(step + 1);
    expect(matchTotp(secret, totpCode(secret, new Date(at.getTime() - 60_000)), at)).toBeNull();
    expect(matchTotp(secret, '00592', at)).toBeNull();
    expect(matchTotp(secret, 'abcdef', at)).toBeNull();
  });

  it('sets a factor up in My profile: a QR code and secret, active only once a code confirms it, ten recovery codes', async () => {
    const p = await person();
    const browser = await signedIn(p);
    const before = await t.app.inject({ method: 'GET', url: '/api/latest/account/mfa', headers: browser });
    expect(before.json()).toEqual({
      Enabled: false,
      EnabledAt: null,
      RecoveryCodesLeft: 0,
      Pending: false,
      Required: false,
      PasswordUser: true,
    });
    const started = await post('/account/mfa/enrolment', {}, p.ip, browser);
    expect(started.statusCode).toBe(200);
    const { Secret, OtpauthUri, QrCode } = started.json();
    expect(Secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(OtpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/Rampart:${p.email}`);
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      issuer: 'Rampart',
      secret: Secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    expect(QrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(QrCode.split(',')[1], 'base64').toString('utf8')).toMatch(/^<svg[^>]*>.*<\/svg>$/s);

    // Pending: sign-in does not ask for a code yet.
    const pending = await t.app.inject({ method: 'GET', url: '/api/latest/account/mfa', headers: browser });
    expect(pending.json()).toMatchObject({ Enabled: false, Pending: true });
    expect((await passwordStep(p)).statusCode).toBe(200);

    // A wrong code, and a code of another secret, are a 400 naming the field.
    const wrong = await post('/account/mfa/enrolment/confirm', { Code: '000000' }, p.ip, browser);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0]).toMatchObject({ path: '/Code' });
    expect(wrong.json().detail).toMatch(/not the current code of the new secret/);

    const confirmed = await post('/account/mfa/enrolment/confirm', { Code: code(Secret) }, p.ip, browser);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const codes = confirmed.json().RecoveryCodes as string[];
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    expect(new Set(codes).size).toBe(10);
    const after = await t.app.inject({ method: 'GET', url: '/api/latest/account/mfa', headers: browser });
    expect(after.json()).toEqual({
      Enabled: true,
      EnabledAt: clock.now.toISOString(),
      RecoveryCodesLeft: 10,
      Pending: false,
      Required: false,
      PasswordUser: true,
    });
    // Confirming twice: nothing pending any more.
    nextStep();
    const again = await post('/account/mfa/enrolment/confirm', { Code: code(Secret) }, p.ip, browser);
    expectProblem(again, 409, 'conflict');
  });

  it('asks a user with a factor for a code before any session; the code starts it', async () => {
    const p = await person();
    const { secret } = await enrol(p);
    const first = await passwordStep(p);
    expect(first.statusCode).toBe(202);
    expect(first.headers['set-cookie']).toBeUndefined();
    const challenge = first.json();
    expect(challenge).toEqual({
      Step: 'Code',
      ChallengeToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      ExpiresAt: new Date(clock.now.getTime() + 5 * 60_000).toISOString(),
    });
    nextStep();
    const done = await post(
      '/session/mfa',
      { ChallengeToken: challenge.ChallengeToken, Code: code(secret) },
      p.ip,
    );
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().User.Email).toBe(p.email);
    expect(String(done.headers['set-cookie'])).toMatch(/^rampart_session=[A-Za-z0-9_-]{43};.*HttpOnly/);
    expect((await whoAmI(cookieOf(done))).statusCode).toBe(200);
    // The challenge was single-use.
    nextStep();
    const reused = await post(
      '/session/mfa',
      { ChallengeToken: challenge.ChallengeToken, Code: code(secret) },
      p.ip,
    );
    expectProblem(reused, 401, 'sign-in-challenge-expired');
    expect(reused.json().detail).toMatch(/no longer valid: sign in again with your email and password/);
    // The wrong password is still the same 401 as before, with no hint of a factor.
    const wrongPassword = await passwordStep(p, 'not the passphrase');
    expectProblem(wrongPassword, 401, 'unauthenticated');
    // Audited: the sign-in says how the second step was passed.
    const entries = await t.services.audit.listRecent(t.org.id, 20);
    const signedIn = entries.find((e) => e.action === 'session.signed_in' && e.actor_id === p.id);
    expect(signedIn?.details).toEqual({ secondFactor: 'Totp' });
  });

  it('refuses a code used already within its window (no replay), then takes the next one', async () => {
    const p = await person();
    const { secret } = await enrol(p);
    nextStep();
    const used = code(secret);
    const one = (await passwordStep(p)).json().ChallengeToken;
    expect((await post('/session/mfa', { ChallengeToken: one, Code: used }, p.ip)).statusCode).toBe(200);
    // Someone who saw the code over a shoulder, within the same 30 seconds:
    const two = (await passwordStep(p)).json().ChallengeToken;
    const replay = await post('/session/mfa', { ChallengeToken: two, Code: used }, p.ip);
    expectProblem(replay, 401, 'second-factor-invalid');
    expect(replay.json().detail).toMatch(/^This code was used already: wait for the next one/);
    expect(replay.json().attemptsLeft).toBe(4);
    // The code of the step before is older still: refused too.
    const older = totpCode(secret, new Date(clock.now.getTime() - 30_000));
    expectProblem(
      await post('/session/mfa', { ChallengeToken: two, Code: older }, p.ip),
      401,
      'second-factor-invalid',
    );
    nextStep();
    expect((await post('/session/mfa', { ChallengeToken: two, Code: code(secret) }, p.ip)).statusCode).toBe(
      200,
    );
  });

  it('says clearly what is wrong with a code, and ends the sign-in after five wrong ones', async () => {
    const p = await person();
    const { secret } = await enrol(p);
    const token = (await passwordStep(p)).json().ChallengeToken;
    for (let left = 4; left >= 1; left--) {
      const res = await post('/session/mfa', { ChallengeToken: token, Code: '111111' }, p.ip);
      expectProblem(res, 401, 'second-factor-invalid');
      expect(res.json().detail).toBe(
        `The code is not right: type the 6 digits your authenticator app shows now for Rampart. ${left} ${left === 1 ? 'try' : 'tries'} left.`,
      );
      expect(res.json().attemptsLeft).toBe(left);
    }
    const last = await post('/session/mfa', { ChallengeToken: token, Code: 'abc' }, p.ip);
    expectProblem(last, 401, 'second-factor-invalid');
    expect(last.json().detail).toMatch(
      /That was the last try: sign in again with your email and password\.$/,
    );
    // Even the right code no longer opens this sign-in.
    nextStep();
    const late = await post('/session/mfa', { ChallengeToken: token, Code: code(secret) }, p.ip);
    expectProblem(late, 401, 'sign-in-challenge-expired');
    expect(late.json().detail).toBe(
      'Too many wrong codes for this sign-in: sign in again with your email and password.',
    );
    const failures = (await t.services.audit.listRecent(t.org.id, 50)).filter(
      (e) => e.action === 'session.second_factor_failed' && e.actor_id === p.id,
    );
    expect(failures).toHaveLength(5);
    expect(failures.map((e) => e.details)).toContainEqual({ method: 'Totp', failedAttempts: 5 });
    for (const e of failures) expect(JSON.stringify(e.details)).not.toContain('111111');
  });

  it('says a sign-in expired after five minutes', async () => {
    const p = await person();
    const { secret } = await enrol(p);
    const token = (await passwordStep(p)).json().ChallengeToken;
    clock.now = new Date(clock.now.getTime() + 5 * 60_000 + 1000);
    const res = await post('/session/mfa', { ChallengeToken: token, Code: code(secret) }, p.ip);
    expectProblem(res, 401, 'sign-in-challenge-expired');
    expect(res.json().detail).toBe(
      'This sign-in expired (it lasts 5 minutes after the password): sign in again with your email and password.',
    );
  });

  it('signs in with a recovery code once per code, and audits its use', async () => {
    const p = await person();
    const { recoveryCodes } = await enrol(p);
    const token = (await passwordStep(p)).json().ChallengeToken;
    // Typed in capitals, without dashes: the same code.
    const typed = recoveryCodes[3]!.toUpperCase().replaceAll('-', ' ');
    const res = await post('/session/mfa', { ChallengeToken: token, RecoveryCode: typed }, p.ip);
    expect(res.statusCode, res.body).toBe(200);
    const again = await post(
      '/session/mfa',
      { ChallengeToken: (await passwordStep(p)).json().ChallengeToken, RecoveryCode: recoveryCodes[3] },
      p.ip,
    );
    expectProblem(again, 401, 'second-factor-invalid');
    expect(again.json().detail).toMatch(/^This recovery code is not one of yours, or it was used already\./);
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/latest/account/mfa',
      headers: browserOf(res),
    });
    expect(status.json().RecoveryCodesLeft).toBe(9);
    const used = (await t.services.audit.listRecent(t.org.id, 30)).find(
      (e) => e.action === 'mfa.recovery_code_used' && e.target_id === p.id,
    );
    expect(used?.details).toEqual({ left: 9 });
    // The recovery code is never stored or recorded as typed.
    expect(JSON.stringify(await t.services.audit.listRecent(t.org.id, 100))).not.toContain(recoveryCodes[3]!);
  });

  it('refuses bad input to the second step with a problem naming the field', async () => {
    const p = await person();
    await enrol(p);
    const token = (await passwordStep(p)).json().ChallengeToken;
    const cases: [unknown, string][] = [
      [{ Code: '123456' }, '/ChallengeToken'],
      [{ ChallengeToken: token, Code: '1'.repeat(33) }, '/Code'],
      [{ ChallengeToken: token, code: '123456' }, '/code'],
      [{ ChallengeToken: token, Code: 123456 }, '/Code'],
      [{ ChallengeToken: '', Code: '123456' }, '/ChallengeToken'],
    ];
    for (const [body, path] of cases) {
      const res = await post('/session/mfa', body, p.ip);
      expectProblem(res, 400, 'validation-failed');
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const both = await post(
      '/session/mfa',
      { ChallengeToken: token, Code: '123456', RecoveryCode: 'x' },
      p.ip,
    );
    expectProblem(both, 400, 'validation-failed');
    expect(both.json().detail).toMatch(/Code of your authenticator app or a RecoveryCode, one of the two/);
    expectProblem(await post('/session/mfa', { ChallengeToken: token }, p.ip), 400, 'validation-failed');
    const garbage = await post('/session/mfa', { ChallengeToken: 'not-a-token', Code: '123456' }, p.ip);
    expectProblem(garbage, 401, 'sign-in-challenge-expired');
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session/mfa',
      headers: { 'content-type': 'application/json' },
      payload: '{"ChallengeToken":',
    });
    expectProblem(malformed, 400, 'malformed-json');
    // None of these counted against the sign-in itself: the right code still works.
  });

  it('counts codes against the sign-in throttle of the account, as passwords are', async () => {
    const p = await person();
    const { secret } = await enrol(p);
    // The enrolment's sign-in spent 1 of the 8 attempts for this account from this address, this
    // password step a 2nd, five wrong codes the 3rd to 7th (and this sign-in), a new password step the 8th.
    const token = (await passwordStep(p)).json().ChallengeToken;
    for (let i = 0; i < 5; i++)
      expectProblem(
        await post('/session/mfa', { ChallengeToken: token, Code: '222222' }, p.ip),
        401,
        'second-factor-invalid',
      );
    const next = await passwordStep(p);
    expect(next.statusCode).toBe(202);
    nextStep();
    const throttled = await post(
      '/session/mfa',
      { ChallengeToken: next.json().ChallengeToken, Code: code(secret) },
      p.ip,
    );
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toMatch(/^\d+$/);
    expect(throttled.json().detail).toMatch(/^Too many sign-in attempts for this account from this address/);
    // The password step of the same account shares the budget.
    expect((await passwordStep(p)).statusCode).toBe(429);
  });

  it('makes new recovery codes after the password or a code, and the old ones stop working', async () => {
    const p = await person();
    const { secret, recoveryCodes, browser } = await enrol(p);
    const none = await post('/account/mfa/recoverycodes', {}, p.ip, browser);
    expectProblem(none, 400, 'validation-failed');
    expect(none.json().detail).toMatch(/give your password or a current code/);
    const both = await post(
      '/account/mfa/recoverycodes',
      { Password: PASSWORD, Code: '123456' },
      p.ip,
      browser,
    );
    expectProblem(both, 400, 'validation-failed');
    const wrong = await post('/account/mfa/recoverycodes', { Password: 'not my password' }, p.ip, browser);
    expectProblem(wrong, 400, 'validation-failed');
    expect(wrong.json().errors[0]).toMatchObject({
      path: '/Password',
      message: 'is not your current password',
    });
    const wrongCode = await post('/account/mfa/recoverycodes', { Code: '333333' }, p.ip, browser);
    expect(wrongCode.json().errors[0]).toMatchObject({ path: '/Code' });
    const unknown = await post('/account/mfa/recoverycodes', { Passwd: PASSWORD }, p.ip, browser);
    expectProblem(unknown, 400, 'validation-failed');

    nextStep();
    const made = await post('/account/mfa/recoverycodes', { Code: code(secret) }, p.ip, browser);
    expect(made.statusCode, made.body).toBe(200);
    const fresh = made.json().RecoveryCodes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => recoveryCodes.includes(c))).toBe(false);
    // The code used here cannot sign in again.
    const replay = await post(
      '/session/mfa',
      { ChallengeToken: (await passwordStep(p)).json().ChallengeToken, Code: code(secret) },
      p.ip,
    );
    expectProblem(replay, 401, 'second-factor-invalid');
    const old = await post(
      '/session/mfa',
      { ChallengeToken: (await passwordStep(p)).json().ChallengeToken, RecoveryCode: recoveryCodes[0] },
      p.ip,
    );
    expectProblem(old, 401, 'second-factor-invalid');
    const ok = await post(
      '/session/mfa',
      { ChallengeToken: (await passwordStep(p)).json().ChallengeToken, RecoveryCode: fresh[0] },
      p.ip,
    );
    expect(ok.statusCode).toBe(200);
    expect(
      (await t.services.audit.listRecent(t.org.id, 40)).some(
        (e) => e.action === 'mfa.recovery_codes_regenerated' && e.target_id === p.id,
      ),
    ).toBe(true);
  });

  it('turns the factor off after the password; sign-in then asks for the password only', async () => {
    const p = await person();
    const { browser } = await enrol(p);
    const wrong = await post('/account/mfa/disable', { Password: 'not my password' }, p.ip, browser);
    expectProblem(wrong, 400, 'validation-failed');
    const off = await post('/account/mfa/disable', { Password: PASSWORD }, p.ip, browser);
    expect(off.statusCode).toBe(204);
    expect((await passwordStep(p)).statusCode).toBe(200);
    const again = await post('/account/mfa/disable', { Password: PASSWORD }, p.ip, browser);
    expectProblem(again, 409, 'conflict');
    expect(again.json().detail).toBe('You have no second factor.');
    const entry = (await t.services.audit.listRecent(t.org.id, 30)).find(
      (e) => e.action === 'mfa.disabled' && e.target_id === p.id,
    );
    expect(entry?.details).toEqual({ confirmedWith: 'password' });
  });

  it('keeps factor management to web sessions: an API key can read the status only', async () => {
    const key = await t.userWithKey('Admin');
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/latest/account/mfa',
      headers: authHeaders(key),
    });
    // A user made without a password (an API-key-only account) has no second factor to set.
    expect(status.json()).toMatchObject({ Enabled: false, PasswordUser: false });
    for (const url of ['/account/mfa/enrolment', '/account/mfa/disable', '/account/mfa/recoverycodes']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/latest${url}`,
        headers: { ...authHeaders(key), 'content-type': 'application/json' },
        payload: '{}',
      });
      expectProblem(res, 401, 'unauthenticated');
      expect(res.json().detail).toContain('web session');
    }
    const noPassword = await t.services.mfa
      .startEnrolment({ ...ctx, actor: { type: 'user', id: key.userId } }, key.userId)
      .catch((e: AppError) => e);
    expect(noPassword).toBeInstanceOf(AppError);
    expect((noPassword as AppError).detail).toMatch(/your account has no password/);
  });

  describe('when the organisation requires a second factor', () => {
    let admin: Credentials;
    const put = (who: Credentials, body: unknown) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/latest/settings',
        headers: { ...authHeaders(who), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const sla = { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null };

    beforeAll(async () => {
      admin = await t.userWithKey('Admin');
    });
    afterAll(async () => {
      expect((await put(admin, { SlaDays: sla, RequireMfa: false })).statusCode).toBe(200);
    });

    it('is an Admin’s setting, refused with bad input, and audited', async () => {
      const manager = await t.userWithKey('Manager');
      const refused = await put(manager, { SlaDays: sla, RequireMfa: true });
      expectProblem(refused, 403, 'forbidden');
      expect(refused.json().detail).toBe(
        'Changing RequireMfa requires the Admin role; your role is Manager.',
      );
      // A Manager's PUT that leaves it as it is still saves the SLAs.
      expect((await put(manager, { SlaDays: sla, RequireMfa: false })).statusCode).toBe(200);
      const wrongType = await put(admin, { SlaDays: sla, RequireMfa: 'yes' });
      expectProblem(wrongType, 400, 'validation-failed');
      expect(wrongType.json().errors[0].path).toBe('/RequireMfa');
      const misCased = await put(admin, { SlaDays: sla, requireMfa: true });
      expectProblem(misCased, 400, 'validation-failed');
      expect(misCased.json().errors[0]).toMatchObject({ path: '/requireMfa', suggestion: 'RequireMfa' });
      const on = await put(admin, { SlaDays: sla, RequireMfa: true });
      expect(on.statusCode).toBe(200);
      expect(on.json().RequireMfa).toBe(true);
      const entry = (await t.services.audit.listRecent(t.org.id, 20)).find(
        (e) => e.action === 'settings.require_mfa_changed',
      );
      expect(entry?.details).toEqual({ from: false, to: true });
    });

    it('makes a password user without a factor set one up at sign-in, before any session', async () => {
      expect((await put(admin, { SlaDays: sla, RequireMfa: true })).statusCode).toBe(200);
      const p = await person();
      const first = await passwordStep(p);
      expect(first.statusCode).toBe(202);
      expect(first.headers['set-cookie']).toBeUndefined();
      expect(first.json()).toMatchObject({
        Step: 'Enrol',
        ExpiresAt: new Date(clock.now.getTime() + 10 * 60_000).toISOString(),
      });
      const token = first.json().ChallengeToken;
      // The code step is not this sign-in's.
      const codeStep = await post('/session/mfa', { ChallengeToken: token, Code: '123456' }, p.ip);
      expectProblem(codeStep, 401, 'sign-in-challenge-expired');
      expect(codeStep.json().detail).toMatch(/asks for setting a factor up, not for a code/);
      // Confirming before starting: nothing to confirm.
      const early = await post(
        '/session/mfa/enrolment/confirm',
        { ChallengeToken: token, Code: '123456' },
        p.ip,
      );
      expectProblem(early, 409, 'conflict');
      const started = await post('/session/mfa/enrolment', { ChallengeToken: token }, p.ip);
      expect(started.statusCode, started.body).toBe(200);
      const secret = started.json().Secret as string;
      expect(started.json().QrCode).toMatch(/^data:image\/svg\+xml;base64,/);
      const badBody = await post('/session/mfa/enrolment', { ChallengeToken: token, Extra: 1 }, p.ip);
      expectProblem(badBody, 400, 'validation-failed');
      const wrong = await post(
        '/session/mfa/enrolment/confirm',
        { ChallengeToken: token, Code: '000000' },
        p.ip,
      );
      expectProblem(wrong, 401, 'second-factor-invalid');
      expect(wrong.json().detail).toMatch(/^The code is not right: scan the QR code again/);
      const done = await post(
        '/session/mfa/enrolment/confirm',
        { ChallengeToken: token, Code: code(secret) },
        p.ip,
      );
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json().User.Email).toBe(p.email);
      expect(done.json().RecoveryCodes).toHaveLength(10);
      expect((await whoAmI(cookieOf(done))).statusCode).toBe(200);
      const enrolled = (await t.services.audit.listRecent(t.org.id, 20)).find(
        (e) => e.action === 'mfa.enrolled' && e.target_id === p.id,
      );
      expect(enrolled?.details).toEqual({ replaced: false, atSignIn: true });
      // From now on, a code.
      expect((await passwordStep(p)).json().Step).toBe('Code');
      // The factor cannot be turned off while required.
      nextStep();
      const off = await post('/account/mfa/disable', { Code: code(secret) }, p.ip, browserOf(done));
      expectProblem(off, 409, 'conflict');
      expect(off.json().detail).toMatch(/^Your organisation requires a second factor/);
    });

    it('replaces a set-up started several times at once (a double click, a page mounted twice) rather than failing one', async () => {
      expect((await put(admin, { SlaDays: sla, RequireMfa: true })).statusCode).toBe(200);
      const p = await person();
      const token = (await passwordStep(p)).json().ChallengeToken;
      // Four: within the sign-in budget of the account at this address, with the steps around them.
      const all = await Promise.all(
        Array.from({ length: 4 }, () => post('/session/mfa/enrolment', { ChallengeToken: token }, p.ip)),
      );
      expect(all.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      // One of them is the pending set-up; a third replaces it, and its code confirms it.
      const last = await post('/session/mfa/enrolment', { ChallengeToken: token }, p.ip);
      const done = await post(
        '/session/mfa/enrolment/confirm',
        { ChallengeToken: token, Code: code(last.json().Secret) },
        p.ip,
      );
      expect(done.statusCode, done.body).toBe(200);
    });

    it('leaves API keys alone', async () => {
      expect((await put(admin, { SlaDays: sla, RequireMfa: true })).statusCode).toBe(200);
      const key = await t.userWithKey('Analyst');
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/integration/authenticationcheck',
        headers: authHeaders(key),
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('Authenticated');
    });
  });

  describe('an Admin’s reset of a lost factor', () => {
    it('removes the factor and recovery codes, ends the user’s sessions, and is audited', async () => {
      const p = await person();
      const { browser } = await enrol(p);
      const admin = await t.userWithKey('Admin');
      const listed = await t.app.inject({
        method: 'GET',
        url: '/api/latest/users/mfa',
        headers: authHeaders(admin),
      });
      expect(listed.statusCode).toBe(200);
      expect(listed.json().Items).toContainEqual({
        UserId: p.id,
        EnabledAt: expect.any(String),
        RecoveryCodesLeft: 10,
      });
      expect((await whoAmI(browser.cookie)).statusCode).toBe(200);
      const reset = await t.app.inject({
        method: 'DELETE',
        url: `/api/latest/users/${p.id}/mfa`,
        headers: authHeaders(admin),
      });
      expect(reset.statusCode).toBe(204);
      expect((await whoAmI(browser.cookie)).statusCode).toBe(401);
      expect((await passwordStep(p)).statusCode).toBe(200);
      const after = await t.app.inject({
        method: 'GET',
        url: '/api/latest/users/mfa',
        headers: authHeaders(admin),
      });
      expect(after.json().Items.map((i: { UserId: string }) => i.UserId)).not.toContain(p.id);
      const entry = (await t.services.audit.listRecent(t.org.id, 20)).find(
        (e) => e.action === 'mfa.reset' && e.target_id === p.id,
      );
      expect(entry).toMatchObject({
        actor_type: 'apikey',
        actor_id: admin.apiKeyId,
        details: { hadFactor: true },
      });
    });

    it('answers 404 for a user of no organisation of the caller’s, 400 for a malformed id', async () => {
      const admin = await t.userWithKey('Admin');
      const unknown = await t.app.inject({
        method: 'DELETE',
        url: '/api/latest/users/01900000-0000-7000-8000-000000000000/mfa',
        headers: authHeaders(admin),
      });
      expectProblem(unknown, 404, 'not-found');
      const malformed = await t.app.inject({
        method: 'DELETE',
        url: '/api/latest/users/not-an-id/mfa',
        headers: authHeaders(admin),
      });
      expectProblem(malformed, 400, 'validation-failed');
    });
  });
});
