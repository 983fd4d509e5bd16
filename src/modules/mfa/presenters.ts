import type { Enrolment, MfaStatus, Proof, SecondStep } from './service.js';

// How second factors look on the wire.

export const toMfaStatusDto = (s: MfaStatus) => ({
  Enabled: s.enabled,
  EnabledAt: s.enabledAt?.toISOString() ?? null,
  RecoveryCodesLeft: s.recoveryCodesLeft,
  Pending: s.pending,
  Required: s.required,
  PasswordUser: s.passwordUser,
});

export const toEnrolmentDto = (e: Enrolment) => ({ Secret: e.secret, OtpauthUri: e.uri, QrCode: e.qrCode });

export const toSecondStepDto = (s: SecondStep) => ({
  Step: s.step,
  ChallengeToken: s.token,
  ExpiresAt: s.expiresAt.toISOString(),
});

export const toMfaUserDto = (f: { userId: string; enabledAt: Date | null; recoveryCodesLeft: number }) => ({
  UserId: f.userId,
  EnabledAt: f.enabledAt?.toISOString() ?? null,
  RecoveryCodesLeft: f.recoveryCodesLeft,
});

export const proofFromBody = (b: { Password?: string; Code?: string }): Proof => ({
  password: b.Password,
  code: b.Code,
});
