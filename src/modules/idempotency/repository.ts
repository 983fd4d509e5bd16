import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** Whose key it is: the slot's first three columns, with the key itself. */
export interface SlotId {
  organizationId: string;
  principalKind: 'apikey' | 'user' | 'node';
  principalId: string;
  key: string;
}

/** A slot as a request takes it: what it was sent for, and how long it holds it. */
export interface NewSlot extends SlotId {
  owner: string;
  method: string;
  route: string;
  fingerprint: string | null;
  now: Date;
  leaseUntil: Date;
  expiresAt: Date;
}

/** The answer a slot keeps; `withheld` says why it keeps no body when it keeps none on purpose. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | null;
  withheld: 'secret' | 'too-large' | null;
}

const SLOT_COLUMNS = [
  'owner',
  'method',
  'route',
  'fingerprint',
  'state',
  'status',
  'headers',
  'body',
  'withheld',
  'lease_until',
  'expires_at',
] as const;

export class IdempotencyRepository {
  constructor(private readonly db: Kysely<DB>) {}

  private where(id: SlotId) {
    return this.db
      .selectFrom('idempotency_keys')
      .where('organization_id', '=', id.organizationId)
      .where('principal_kind', '=', id.principalKind)
      .where('principal_id', '=', id.principalId)
      .where('key', '=', id.key);
  }

  /**
   * Takes a free slot: true when this request now holds it, false when the key already has one
   * (whoever holds it, expired or not). Concurrent inserts of one key leave exactly one holder:
   * the primary key makes the others wait for the first to commit, then do nothing.
   */
  async insert(s: NewSlot): Promise<boolean> {
    const rows = await this.db
      .insertInto('idempotency_keys')
      .values({
        organization_id: s.organizationId,
        principal_kind: s.principalKind,
        principal_id: s.principalId,
        key: s.key,
        owner: s.owner,
        method: s.method,
        route: s.route,
        fingerprint: s.fingerprint,
        state: 'InFlight',
        created_at: s.now,
        lease_until: s.leaseUntil,
        expires_at: s.expiresAt,
      })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'principal_kind', 'principal_id', 'key']).doNothing(),
      )
      .returning('owner')
      .execute();
    return rows.length === 1;
  }

  /** The key's slot, whatever its state. */
  find(id: SlotId) {
    return this.where(id).select(SLOT_COLUMNS).executeTakeFirst();
  }

  /**
   * Takes over a slot that is free again: expired, or still InFlight after its lease (the request
   * that held it died). The condition is checked again under the row's lock, so that of two
   * requests taking over one slot only one gets it.
   */
  async takeOver(s: NewSlot): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set({
        owner: s.owner,
        method: s.method,
        route: s.route,
        fingerprint: s.fingerprint,
        state: 'InFlight',
        status: null,
        headers: null,
        body: null,
        withheld: null,
        created_at: s.now,
        lease_until: s.leaseUntil,
        expires_at: s.expiresAt,
        completed_at: null,
      })
      .where('organization_id', '=', s.organizationId)
      .where('principal_kind', '=', s.principalKind)
      .where('principal_id', '=', s.principalId)
      .where('key', '=', s.key)
      .where((eb) =>
        eb.or([
          eb('expires_at', '<=', s.now),
          eb.and([eb('state', '=', 'InFlight'), eb('lease_until', '<=', s.now)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Records the fingerprint of a held slot whose body was read as a stream; false when no longer held. */
  async setFingerprint(id: SlotId, owner: string, fingerprint: string): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set({ fingerprint })
      .where('organization_id', '=', id.organizationId)
      .where('principal_kind', '=', id.principalKind)
      .where('principal_id', '=', id.principalId)
      .where('key', '=', id.key)
      .where('owner', '=', owner)
      .where('state', '=', 'InFlight')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Keeps the answer of the request that holds the slot; false when it no longer holds it. */
  async complete(id: SlotId, owner: string, answer: KeptAnswer, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set({
        state: 'Completed',
        status: answer.status,
        headers: JSON.stringify(answer.headers),
        body: answer.body,
        withheld: answer.withheld,
        completed_at: now,
      })
      .where('organization_id', '=', id.organizationId)
      .where('principal_kind', '=', id.principalKind)
      .where('principal_id', '=', id.principalId)
      .where('key', '=', id.key)
      .where('owner', '=', owner)
      .where('state', '=', 'InFlight')
      .where('fingerprint', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Frees the slot the request holds (its answer is not kept); false when it no longer holds it. */
  async release(id: SlotId, owner: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('organization_id', '=', id.organizationId)
      .where('principal_kind', '=', id.principalKind)
      .where('principal_id', '=', id.principalId)
      .where('key', '=', id.key)
      .where('owner', '=', owner)
      .where('state', '=', 'InFlight')
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Deletes the organisation's slots expired by `now`; returns how many. */
  async purgeExpired(organizationId: string, now: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('organization_id', '=', organizationId)
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** How many slots the organisation has (the tests' and the purge's check). */
  async count(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .where('organization_id', '=', organizationId)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
