import type { Kysely, Transaction } from 'kysely';
import type { DB, MfaChallengePurpose } from '../../db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

const FACTOR = [
  'id',
  'user_id as userId',
  'state',
  'secret',
  'created_at as createdAt',
  'enabled_at as enabledAt',
  'last_used_step as lastUsedStep',
  'last_used_at as lastUsedAt',
] as const;

const CHALLENGE = [
  'organization_id as organizationId',
  'id',
  'user_id as userId',
  'purpose',
  'expires_at as expiresAt',
  'used_at as usedAt',
  'failed_attempts as failedAttempts',
] as const;

/** Factors, recovery codes and sign-in challenges; every query names the organisation. */
export class MfaRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  factor(organizationId: string, userId: string, state: 'Pending' | 'Active', db: Executor = this.db) {
    return db
      .selectFrom('mfa_factors')
      .select(FACTOR)
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('state', '=', state)
      .executeTakeFirst();
  }

  /** A new pending factor, replacing the user's pending one. */
  async startFactor(
    organizationId: string,
    userId: string,
    row: { id: string; secret: string; at: Date },
  ): Promise<void> {
    // One pending set-up per user: a new one replaces it (a new id and secret; created_at, which
    // cannot change, stays that of the first), in one statement so that two started at once (a
    // double click, a page mounted twice) both succeed rather than one tripping the unique index.
    await this.db
      .insertInto('mfa_factors')
      .values({
        organization_id: organizationId,
        id: row.id,
        user_id: userId,
        state: 'Pending',
        secret: row.secret,
        created_at: row.at,
      })
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'user_id'])
          .where('state', '=', 'Pending')
          .doUpdateSet({ id: row.id, secret: row.secret }),
      )
      .execute();
  }

  /**
   * The pending factor becomes the active one (the active one before it, if any, goes), having
   * used `step`, with these recovery codes in place of the old; false when it was no longer pending.
   */
  async activate(
    organizationId: string,
    userId: string,
    factorId: string,
    step: number,
    at: Date,
    codeHashes: Buffer[],
  ): Promise<boolean> {
    try {
      await this.transaction(async (trx) => {
        await trx
          .deleteFrom('mfa_factors')
          .where('organization_id', '=', organizationId)
          .where('user_id', '=', userId)
          .where('state', '=', 'Active')
          .execute();
        const activated = await trx
          .updateTable('mfa_factors')
          .set({ state: 'Active', enabled_at: at, last_used_step: step, last_used_at: at })
          .where('organization_id', '=', organizationId)
          .where('id', '=', factorId)
          .where('state', '=', 'Pending')
          .executeTakeFirst();
        // Rolls the removal of the active factor back with it.
        if (Number(activated.numUpdatedRows) !== 1) throw new NotPending();
        await this.replaceCodes(organizationId, userId, codeHashes, at, trx);
      });
      return true;
    } catch (error) {
      if (error instanceof NotPending) return false;
      throw error;
    }
  }

  /**
   * Records that a code of `step` was used, unless that step or a later one was already: false
   * then (a replay). One statement, so two requests with the same code cannot both pass.
   */
  async spendStep(organizationId: string, factorId: string, step: number, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('mfa_factors')
      .set({ last_used_step: step, last_used_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', factorId)
      .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Removes every factor of the user and their recovery codes; whether there was an active one. */
  async removeAll(organizationId: string, userId: string): Promise<boolean> {
    return this.transaction(async (trx) => {
      const removed = await trx
        .deleteFrom('mfa_factors')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .returning('state')
        .execute();
      await trx
        .deleteFrom('mfa_recovery_codes')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .execute();
      await trx
        .deleteFrom('mfa_challenges')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .execute();
      return removed.some((r) => r.state === 'Active');
    });
  }

  /** The user's recovery codes become these (in one transaction when none is given). */
  async replaceCodes(
    organizationId: string,
    userId: string,
    codeHashes: Buffer[],
    at: Date,
    db?: Transaction<DB>,
  ): Promise<void> {
    if (!db) return this.transaction((trx) => this.replaceCodes(organizationId, userId, codeHashes, at, trx));
    await db
      .deleteFrom('mfa_recovery_codes')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    await db
      .insertInto('mfa_recovery_codes')
      .values(
        codeHashes.map((code_hash) => ({
          organization_id: organizationId,
          user_id: userId,
          code_hash,
          created_at: at,
        })),
      )
      .execute();
  }

  /** Marks an unused recovery code used; false when there is no such unused code. */
  async spendRecoveryCode(organizationId: string, userId: string, codeHash: Buffer, at: Date) {
    const result = await this.db
      .updateTable('mfa_recovery_codes')
      .set({ used_at: at })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async unusedCodes(organizationId: string, userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('mfa_recovery_codes')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The organisation's users with an active factor: when it was enabled, codes left. */
  activeFactors(organizationId: string) {
    return this.db
      .selectFrom('mfa_factors as f')
      .select([
        'f.user_id as userId',
        'f.enabled_at as enabledAt',
        (eb) =>
          eb
            .selectFrom('mfa_recovery_codes as c')
            .select((c) => c.fn.countAll<string>().as('n'))
            .whereRef('c.organization_id', '=', 'f.organization_id')
            .whereRef('c.user_id', '=', 'f.user_id')
            .where('c.used_at', 'is', null)
            .as('codesLeft'),
      ])
      .where('f.organization_id', '=', organizationId)
      .where('f.state', '=', 'Active')
      .orderBy('f.user_id')
      .execute();
  }

  /** A new challenge; the user's spent or expired ones go. */
  async insertChallenge(row: {
    organizationId: string;
    id: string;
    userId: string;
    tokenHash: Buffer;
    purpose: MfaChallengePurpose;
    at: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.db
      .deleteFrom('mfa_challenges')
      .where('organization_id', '=', row.organizationId)
      .where('user_id', '=', row.userId)
      .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', row.at)]))
      .execute();
    await this.db
      .insertInto('mfa_challenges')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        user_id: row.userId,
        token_hash: row.tokenHash,
        purpose: row.purpose,
        created_at: row.at,
        expires_at: row.expiresAt,
      })
      .execute();
  }

  /** A challenge by its token's hash (tokens are unique across organisations, as session tokens are). */
  challengeByTokenHash(tokenHash: Buffer) {
    return this.db
      .selectFrom('mfa_challenges')
      .select(CHALLENGE)
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  /** Counts a wrong code against the challenge; its failed attempts now. */
  async failChallenge(organizationId: string, id: string): Promise<number> {
    const row = await this.db
      .updateTable('mfa_challenges')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning('failed_attempts')
      .executeTakeFirst();
    return row?.failed_attempts ?? 0;
  }

  /** Uses the challenge up; false when it was used already (another request got there first). */
  async spendChallenge(organizationId: string, id: string, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('mfa_challenges')
      .set({ used_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}

class NotPending extends Error {}
