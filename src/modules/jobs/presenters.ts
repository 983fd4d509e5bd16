import type { Job } from '../../jobs/types.js';

// How jobs look on the wire. The payload is left out on purpose: it is the job's own input and
// may hold internals (file paths, keys of other records) that are no business of the API.

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toJobDto = (j: Job) => ({
  Id: j.id,
  Kind: j.kind,
  State: j.state,
  Attempts: j.attempts,
  MaxAttempts: j.maxAttempts,
  RunAt: j.runAt.toISOString(),
  LockedBy: j.lockedBy,
  LeaseUntil: iso(j.leaseUntil),
  LastError: j.lastError,
  CreatedAt: j.createdAt.toISOString(),
  UpdatedAt: j.updatedAt.toISOString(),
  FinishedAt: iso(j.finishedAt),
  OrganizationId: j.organizationId,
});
