import type { AllowedTarget, TargetVerdict } from './types.js';

// How allowed targets and target verdicts look on the wire.

export const toAllowedTargetDto = (t: AllowedTarget) => ({
  Id: t.id,
  Kind: t.kind,
  Target: t.target,
  Description: t.description,
  AddressCount: t.addressCount,
  CreatedAt: t.createdAt.toISOString(),
});

export const toTargetVerdictDto = (v: TargetVerdict) => ({
  Range: v.range,
  Allowed: v.allowed,
  Rule: v.rule,
  Message: v.message,
  AddressCount: v.addressCount,
});
