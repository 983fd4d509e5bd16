import { createHash, randomBytes } from 'node:crypto';
import type { MfaChallengePurpose } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { SettingsService } from '../settings/service.js';
import { verifyPassword } from '../users/password.js';
import type { User, UserAccessChanged, UserService } from '../users/service.js';
import type { MfaRepository } from './repository.js';
import {
  matchTotp,
  newRecoveryCode,
  newTotpSecret,
  normalizeRecoveryCode,
  otpauthUri,
  qrCodeDataUrl,
  RECOVERY_CODE,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
} from './totp.js';

/** How long the second step of a sign-in may take: a code, or setting a factor up. */
export const CHALLENGE_MINUTES: Record<MfaChallengePurpose, number> = { Verify: 5, Enrol: 10 };
/** Wrong codes one sign-in takes before it must start again from the password. */
export const CHALLENGE_ATTEMPTS = 5;

export interface MfaStatus {
  enabled: boolean;
  enabledAt: Date | null;
  recoveryCodesLeft: number;
  /** A set-up was started and not confirmed. */
  pending: boolean;
  /** The organisation requires a second factor of password users. */
  required: boolean;
  /** Only password users have a second factor: sign-in by password is what it guards. */
  passwordUser: boolean;
}

/** What an authenticator app needs: the secret as text, as an otpauth:// URI and as its QR code. */
export interface Enrolment {
  secret: string;
  uri: string;
  qrCode: string;
}

/** The second step a password sign-in needs: a code, or setting a factor up (the organisation requires one). */
export interface SecondStep {
  step: 'Code' | 'Enrol';
  token: string;
  expiresAt: Date;
}

/** How someone proves it is them before changing their factor: their password or a current code. */
export interface Proof {
  password?: string;
  code?: string;
}

/** The answer to a second step: a code of the authenticator app, or one of the recovery codes. */
export interface SecondFactorAnswer {
  code?: string;
  recoveryCode?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const RESTART = 'sign in again with your email and password';

/**
 * Multi-factor sign-in for password users (docs/mfa.md): TOTP factors set up in My profile or at
 * sign-in, one-time recovery codes, the second step of a sign-in, and an Admin's reset.
 */
export class MfaService {
  constructor(
    private readonly repo: MfaRepository,
    private readonly users: UserService,
    private readonly settings: Pick<SettingsService, 'requireMfa'>,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly accessChanged: UserAccessChanged,
  ) {}

  async status(ctx: ServiceContext, userId: string): Promise<MfaStatus> {
    const user = await this.users.get(ctx, userId);
    const [active, pending, codes, required, passwordUser] = await Promise.all([
      this.repo.factor(ctx.organizationId, userId, 'Active'),
      this.repo.factor(ctx.organizationId, userId, 'Pending'),
      this.repo.unusedCodes(ctx.organizationId, userId),
      this.settings.requireMfa(ctx.organizationId),
      this.isPasswordUser(user),
    ]);
    return {
      enabled: !!active,
      enabledAt: active?.enabledAt ?? null,
      recoveryCodesLeft: active ? codes : 0,
      pending: !!pending,
      required,
      passwordUser,
    };
  }

  /**
   * Starts setting a factor up: a new secret, pending until a code of it confirms it. With an
   * active factor already, the new one replaces it once confirmed (a new phone).
   */
  async startEnrolment(ctx: ServiceContext, userId: string): Promise<Enrolment> {
    const user = await this.users.get(ctx, userId);
    if (!(await this.isPasswordUser(user)))
      throw AppError.of(
        Problems.Conflict,
        'A second factor guards sign-in by password, and your account has no password.',
      );
    return this.newPending(user);
  }

  /** Confirms the pending factor with a code of it: only then is it active. New recovery codes, shown once. */
  async confirmEnrolment(ctx: ServiceContext, userId: string, code: string): Promise<string[]> {
    const user = await this.users.get(ctx, userId);
    const pending = await this.repo.factor(ctx.organizationId, userId, 'Pending');
    if (!pending)
      throw AppError.of(
        Problems.Conflict,
        'There is no set-up to confirm: start one first (POST /account/mfa/enrolment).',
      );
    const step = matchTotp(pending.secret, code, this.clock());
    if (step === null)
      throw invalid(
        'code',
        'is not the current code of the new secret: check that the app shows Rampart and that this device’s clock is right',
      );
    return this.activate(ctx, user, pending.id, step, false);
  }

  /** New recovery codes in place of the old ones, shown once. */
  async regenerateRecoveryCodes(ctx: ServiceContext, userId: string, proof: Proof): Promise<string[]> {
    const user = await this.users.get(ctx, userId);
    const active = await this.activeFactor(ctx, userId);
    await this.checkProof(user, active, proof);
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await this.repo.replaceCodes(ctx.organizationId, userId, codes.map(recoveryCodeHash), this.clock());
    await this.audit.record(ctx, 'mfa.recovery_codes_regenerated', { type: 'user', id: userId });
    return codes;
  }

  /** Removes the user's own factor, after their password or a current code. */
  async disable(ctx: ServiceContext, userId: string, proof: Proof): Promise<void> {
    const user = await this.users.get(ctx, userId);
    const active = await this.activeFactor(ctx, userId);
    if (await this.settings.requireMfa(ctx.organizationId))
      throw AppError.of(
        Problems.Conflict,
        'Your organisation requires a second factor, so it cannot be removed; to move it to another device, set up a new one: it replaces this one.',
      );
    await this.checkProof(user, active, proof);
    await this.repo.removeAll(ctx.organizationId, userId);
    await this.audit.record(
      ctx,
      'mfa.disabled',
      { type: 'user', id: userId },
      { confirmedWith: proof.password !== undefined ? 'password' : 'code' },
    );
  }

  /**
   * An Admin removes a user's factor (a lost device): pending set-ups and recovery codes go too,
   * and the user's sessions end. They set a new one up in My profile, or at their next sign-in
   * when the organisation requires one.
   */
  async reset(ctx: ServiceContext, userId: string): Promise<{ hadFactor: boolean }> {
    await this.users.get(ctx, userId);
    const hadFactor = await this.repo.removeAll(ctx.organizationId, userId);
    await this.accessChanged.notify(ctx.organizationId, userId, { endSessions: true });
    await this.audit.record(ctx, 'mfa.reset', { type: 'user', id: userId }, { hadFactor });
    return { hadFactor };
  }

  /** The organisation's users with an active factor (the users page shows it and offers the reset). */
  async activeFactors(
    ctx: ServiceContext,
  ): Promise<{ userId: string; enabledAt: Date | null; recoveryCodesLeft: number }[]> {
    const rows = await this.repo.activeFactors(ctx.organizationId);
    return rows.map((r) => ({
      userId: r.userId,
      enabledAt: r.enabledAt,
      recoveryCodesLeft: Number(r.codesLeft ?? 0),
    }));
  }

  // The sign-in's second step.

  /**
   * What a password sign-in of this user needs after the password: null when nothing more; a code
   * when they have a factor; setting one up when their organisation requires one and they have none.
   */
  async secondStepFor(user: User): Promise<SecondStep | null> {
    const active = await this.repo.factor(user.organizationId, user.id, 'Active');
    if (active) return this.challenge(user, 'Verify');
    if (await this.settings.requireMfa(user.organizationId)) return this.challenge(user, 'Enrol');
    return null;
  }

  /** The email of a challenge's user, for the sign-in throttle ('' when the token is unknown). */
  async accountOf(token: unknown): Promise<string> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return '';
    const challenge = await this.repo.challengeByTokenHash(sha256(token));
    if (!challenge) return '';
    const user = await this.users
      .get(this.userCtx(challenge.organizationId, challenge.userId), challenge.userId)
      .catch(() => undefined);
    return user?.email.trim().toLowerCase() ?? '';
  }

  /**
   * The second step of a sign-in: a code of the user's app (not one used already) or an unused
   * recovery code. The user, whose session may now start, and how they proved it.
   */
  async completeSignIn(
    token: string,
    answer: SecondFactorAnswer,
    meta: { ipAddress: string | null; requestId?: string },
  ): Promise<{ user: User; method: 'Totp' | 'RecoveryCode' }> {
    if ((answer.code === undefined) === (answer.recoveryCode === undefined))
      throw invalid('code', 'give a Code of your authenticator app or a RecoveryCode, one of the two');
    const { challenge, user, ctx } = await this.liveChallenge(token, 'Verify', meta);
    const active = await this.repo.factor(user.organizationId, user.id, 'Active');
    if (!active)
      throw AppError.of(
        Problems.SignInChallengeExpired,
        `Your second factor was removed since the password step: ${RESTART}.`,
      );
    const now = this.clock();
    const method = answer.recoveryCode !== undefined ? 'RecoveryCode' : 'Totp';
    let wrong: string | undefined;
    if (method === 'RecoveryCode') {
      const normalized = normalizeRecoveryCode(answer.recoveryCode ?? '');
      const used =
        RECOVERY_CODE.test(normalized) &&
        (await this.repo.spendRecoveryCode(user.organizationId, user.id, recoveryCodeHash(normalized), now));
      if (!used) wrong = 'This recovery code is not one of yours, or it was used already.';
    } else {
      const step = matchTotp(active.secret, answer.code ?? '', now);
      if (step === null)
        wrong = 'The code is not right: type the 6 digits your authenticator app shows now for Rampart.';
      else if (!(await this.repo.spendStep(user.organizationId, active.id, step, now)))
        wrong = 'This code was used already: wait for the next one (a new code comes every 30 seconds).';
    }
    if (wrong) await this.refuse(ctx, challenge, method, wrong);
    await this.spend(challenge);
    if (method === 'RecoveryCode')
      await this.audit.record(
        ctx,
        'mfa.recovery_code_used',
        { type: 'user', id: user.id },
        { left: await this.repo.unusedCodes(user.organizationId, user.id) },
      );
    return { user, method };
  }

  /** Setting a factor up during a sign-in (the organisation requires one): a new pending secret. */
  async startSignInEnrolment(
    token: string,
    meta: { ipAddress: string | null; requestId?: string },
  ): Promise<Enrolment> {
    const { user } = await this.liveChallenge(token, 'Enrol', meta);
    return this.newPending(user);
  }

  /** Confirms the factor set up during a sign-in: the user, whose session may start, and recovery codes. */
  async confirmSignInEnrolment(
    token: string,
    code: string,
    meta: { ipAddress: string | null; requestId?: string },
  ): Promise<{ user: User; recoveryCodes: string[] }> {
    const { challenge, user, ctx } = await this.liveChallenge(token, 'Enrol', meta);
    const pending = await this.repo.factor(user.organizationId, user.id, 'Pending');
    if (!pending)
      throw AppError.of(
        Problems.Conflict,
        'There is no set-up to confirm: start one first (POST /session/mfa/enrolment).',
      );
    const step = matchTotp(pending.secret, code, this.clock());
    if (step === null)
      await this.refuse(
        ctx,
        challenge,
        'Totp',
        'The code is not right: scan the QR code again and type the 6 digits the app shows now.',
      );
    await this.spend(challenge);
    return { user, recoveryCodes: await this.activate(ctx, user, pending.id, step!, true) };
  }

  // Helpers.

  private async isPasswordUser(user: User): Promise<boolean> {
    return !!(await this.users.findForSignIn(user.email))?.passwordHash;
  }

  private userCtx(
    organizationId: string,
    userId: string,
    meta?: { ipAddress: string | null; requestId?: string },
  ) {
    return {
      organizationId,
      actor: { type: 'user' as const, id: userId },
      userId,
      ...(meta?.ipAddress ? { ipAddress: meta.ipAddress } : {}),
      ...(meta?.requestId ? { requestId: meta.requestId } : {}),
    } satisfies ServiceContext;
  }

  private async newPending(user: User): Promise<Enrolment> {
    const secret = newTotpSecret();
    await this.repo.startFactor(user.organizationId, user.id, { id: uuidv7(), secret, at: this.clock() });
    const uri = otpauthUri(secret, user.email);
    return { secret, uri, qrCode: qrCodeDataUrl(uri) };
  }

  private async activate(
    ctx: ServiceContext,
    user: User,
    factorId: string,
    step: number,
    atSignIn: boolean,
  ): Promise<string[]> {
    const replaced = !!(await this.repo.factor(user.organizationId, user.id, 'Active'));
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const activated = await this.repo.activate(
      user.organizationId,
      user.id,
      factorId,
      step,
      this.clock(),
      codes.map(recoveryCodeHash),
    );
    if (!activated)
      throw AppError.of(
        Problems.Conflict,
        'This set-up was replaced by a newer one: confirm that one instead.',
      );
    await this.audit.record(ctx, 'mfa.enrolled', { type: 'user', id: user.id }, { replaced, atSignIn });
    return codes;
  }

  private async activeFactor(ctx: ServiceContext, userId: string) {
    const active = await this.repo.factor(ctx.organizationId, userId, 'Active');
    if (!active) throw AppError.of(Problems.Conflict, 'You have no second factor.');
    return active;
  }

  /** The password, or a current code of the factor (used up, as at sign-in); a 400 naming the field otherwise. */
  private async checkProof(user: User, factor: { id: string; secret: string }, proof: Proof): Promise<void> {
    if ((proof.password === undefined) === (proof.code === undefined))
      throw invalid('password', 'give your password or a current code (Code), one of the two');
    if (proof.password !== undefined) {
      const hash = (await this.users.findForSignIn(user.email))?.passwordHash;
      if (!hash || !(await verifyPassword(proof.password, hash)))
        throw invalid('password', 'is not your current password');
      return;
    }
    const now = this.clock();
    const step = matchTotp(factor.secret, proof.code ?? '', now);
    if (step === null) throw invalid('code', 'is not the current code of your authenticator app');
    if (!(await this.repo.spendStep(user.organizationId, factor.id, step, now)))
      throw invalid('code', 'was used already: wait for the next one');
  }

  private async challenge(user: User, purpose: MfaChallengePurpose): Promise<SecondStep> {
    const token = randomBytes(32).toString('base64url');
    const at = this.clock();
    const expiresAt = new Date(at.getTime() + CHALLENGE_MINUTES[purpose] * 60_000);
    await this.repo.insertChallenge({
      organizationId: user.organizationId,
      id: uuidv7(),
      userId: user.id,
      tokenHash: sha256(token),
      purpose,
      at,
      expiresAt,
    });
    return { step: purpose === 'Verify' ? 'Code' : 'Enrol', token, expiresAt };
  }

  /** The challenge of a token if it can still be answered, with its active user; a 401 that says why otherwise. */
  private async liveChallenge(
    token: string,
    purpose: MfaChallengePurpose,
    meta: { ipAddress: string | null; requestId?: string },
  ) {
    const challenge = TOKEN.test(token) ? await this.repo.challengeByTokenHash(sha256(token)) : undefined;
    if (!challenge || challenge.usedAt)
      throw AppError.of(Problems.SignInChallengeExpired, `This sign-in is no longer valid: ${RESTART}.`);
    if (challenge.purpose !== purpose)
      throw AppError.of(
        Problems.SignInChallengeExpired,
        purpose === 'Enrol'
          ? `This sign-in asks for a code, not for setting a factor up: ${RESTART}.`
          : `This sign-in asks for setting a factor up, not for a code: ${RESTART}.`,
      );
    if (challenge.expiresAt.getTime() <= this.clock().getTime())
      throw AppError.of(
        Problems.SignInChallengeExpired,
        `This sign-in expired (it lasts ${CHALLENGE_MINUTES[purpose]} minutes after the password): ${RESTART}.`,
      );
    if (challenge.failedAttempts >= CHALLENGE_ATTEMPTS)
      throw AppError.of(
        Problems.SignInChallengeExpired,
        `Too many wrong codes for this sign-in: ${RESTART}.`,
      );
    const ctx = this.userCtx(challenge.organizationId, challenge.userId, meta);
    const user = await this.users.get(ctx, challenge.userId).catch(() => undefined);
    if (!user?.active)
      throw AppError.of(Problems.SignInChallengeExpired, `This sign-in is no longer valid: ${RESTART}.`);
    return { challenge, user, ctx };
  }

  /** Counts a wrong answer against its sign-in, records it, and refuses with how many tries are left. */
  private async refuse(
    ctx: ServiceContext,
    challenge: { organizationId: string; id: string },
    method: 'Totp' | 'RecoveryCode',
    detail: string,
  ): Promise<never> {
    const failed = await this.repo.failChallenge(challenge.organizationId, challenge.id);
    await this.audit.record(
      ctx,
      'session.second_factor_failed',
      { type: 'user', id: ctx.userId! },
      { method, failedAttempts: failed },
    );
    const left = Math.max(0, CHALLENGE_ATTEMPTS - failed);
    throw AppError.of(
      Problems.SecondFactorInvalid,
      left > 0
        ? `${detail} ${left} ${left === 1 ? 'try' : 'tries'} left.`
        : `${detail} That was the last try: ${RESTART}.`,
      { attemptsLeft: left },
    );
  }

  private async spend(challenge: { organizationId: string; id: string }): Promise<void> {
    if (!(await this.repo.spendChallenge(challenge.organizationId, challenge.id, this.clock())))
      throw AppError.of(Problems.SignInChallengeExpired, `This sign-in was completed already: ${RESTART}.`);
  }
}
