import type { AllowedTargetKind } from '../../db/schema.js';
import type { TargetRefusal } from '../../scanning/types.js';

export type { AllowedTargetKind };

/** One entry of an organisation's scan policy: a range or host name allowed, or one excluded. */
export interface AllowedTarget {
  id: string;
  organizationId: string;
  kind: AllowedTargetKind;
  /** Canonical text: 10.0.0.0/24, 10.0.0.1-10.0.0.20, 2001:db8::1, host.example.com, *.example.com. */
  target: string;
  description: string | null;
  createdBy: string | null;
  createdAt: Date;
  /** Addresses the entry covers; a host name counts 1, a wildcard is null (unknown). */
  addressCount: number | null;
}

export interface NewAllowedTarget {
  kind: AllowedTargetKind;
  target: string;
  description?: string | null;
}

/** The verdict on one scan target, for live validation while a scan is written. */
export interface TargetVerdict {
  range: string;
  allowed: boolean;
  rule: TargetRefusal['rule'] | null;
  message: string | null;
  /** Addresses it would scan, exclusions left out; 0 when it does not parse. */
  addressCount: number;
}
