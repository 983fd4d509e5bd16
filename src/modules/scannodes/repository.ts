import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, ScanNodesTable } from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;
export type ScanNodeRow = Selectable<ScanNodesTable>;

const NODE_COLUMNS = [
  'organization_id',
  'id',
  'name',
  'kinds',
  'version',
  'capacity',
  'is_local',
  'last_heartbeat_at',
  'revoked_at',
  'created_at',
] as const;
export type ScanNodeListRow = Pick<ScanNodeRow, (typeof NODE_COLUMNS)[number]>;

/** The SQL of scan nodes and their enrolment tokens. Every time comes from the caller (the app clock). */
export class ScanNodeRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async insertEnrolment(row: {
    organizationId: string;
    id: string;
    tokenHash: Buffer;
    expiresAt: Date;
    createdBy: string | null;
    now: Date;
  }): Promise<void> {
    await this.db
      .insertInto('scan_node_enrolments')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        token_hash: row.tokenHash,
        expires_at: row.expiresAt,
        created_by: row.createdBy,
        created_at: row.now,
      })
      .execute();
  }

  /** The enrolment of a token, locked for this transaction (a token is used once). */
  lockEnrolment(trx: Transaction<DB>, tokenHash: Buffer) {
    return trx
      .selectFrom('scan_node_enrolments')
      .select(['organization_id', 'id', 'expires_at', 'used_at'])
      .where('token_hash', '=', tokenHash)
      .forUpdate()
      .executeTakeFirst();
  }

  async markEnrolmentUsed(
    trx: Transaction<DB>,
    organizationId: string,
    id: string,
    nodeId: string,
    at: Date,
  ): Promise<void> {
    await trx
      .updateTable('scan_node_enrolments')
      .set({ used_at: at, node_id: nodeId })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  insertNode(
    row: {
      organizationId: string | null;
      id: string;
      name: string;
      kinds: string[];
      version: string;
      capacity: number;
      local: boolean;
      keyHash: Buffer | null;
      enrolmentId: string | null;
      now: Date;
    },
    db: Db = this.db,
  ): Promise<ScanNodeListRow> {
    return db
      .insertInto('scan_nodes')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        name: row.name,
        kinds: row.kinds,
        version: row.version,
        capacity: row.capacity,
        is_local: row.local,
        key_hash: row.keyHash,
        enrolment_id: row.enrolmentId,
        created_at: row.now,
      })
      .returning(NODE_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** The node of a key; the organisation is not known yet: the key is what identifies it. */
  findByKeyHash(keyHash: Buffer): Promise<ScanNodeListRow | undefined> {
    return this.db
      .selectFrom('scan_nodes')
      .select(NODE_COLUMNS)
      .where('key_hash', '=', keyHash)
      .where('is_local', '=', false)
      .executeTakeFirst();
  }

  findLocal(): Promise<ScanNodeListRow | undefined> {
    return this.db
      .selectFrom('scan_nodes')
      .select(NODE_COLUMNS)
      .where('is_local', '=', true)
      .where('organization_id', 'is', null)
      .executeTakeFirst();
  }

  /** The local node's description follows the server that runs it. */
  updateLocal(change: {
    kinds: string[];
    version: string;
    capacity: number;
  }): Promise<ScanNodeListRow | undefined> {
    return this.db
      .updateTable('scan_nodes')
      .set({ kinds: change.kinds, version: change.version, capacity: change.capacity })
      .where('is_local', '=', true)
      .where('organization_id', 'is', null)
      .returning(NODE_COLUMNS)
      .executeTakeFirst();
  }

  /** A node an organisation sees: its own, or the local node. */
  findVisible(organizationId: string, id: string, db: Db = this.db): Promise<ScanNodeListRow | undefined> {
    return db
      .selectFrom('scan_nodes')
      .select(NODE_COLUMNS)
      .where('id', '=', id)
      .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('organization_id', 'is', null)]))
      .executeTakeFirst();
  }

  /** An organisation's nodes and the local node, local first then oldest first. */
  listVisible(organizationId: string): Promise<ScanNodeListRow[]> {
    return this.db
      .selectFrom('scan_nodes')
      .select(NODE_COLUMNS)
      .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('organization_id', 'is', null)]))
      .orderBy('is_local', 'desc')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  revoke(organizationId: string, id: string, at: Date): Promise<ScanNodeListRow | undefined> {
    return this.db
      .updateTable('scan_nodes')
      .set({ revoked_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning(NODE_COLUMNS)
      .executeTakeFirst();
  }

  /** Records a heartbeat (and what the node says of itself); undefined for a revoked node. */
  heartbeat(
    organizationId: string | null,
    id: string,
    change: { at: Date; kinds?: string[]; version?: string; capacity?: number },
  ): Promise<ScanNodeListRow | undefined> {
    let q = this.db
      .updateTable('scan_nodes')
      .set({
        last_heartbeat_at: change.at,
        ...(change.kinds ? { kinds: change.kinds } : {}),
        ...(change.version !== undefined ? { version: change.version } : {}),
        ...(change.capacity !== undefined ? { capacity: change.capacity } : {}),
      })
      .where('id', '=', id)
      .where('revoked_at', 'is', null);
    q =
      organizationId === null
        ? q.where('organization_id', 'is', null)
        : q.where('organization_id', '=', organizationId);
    return q.returning(NODE_COLUMNS).executeTakeFirst();
  }

  /** For the metrics, across organisations: each node not revoked, whether local, its last heartbeat. */
  liveHeartbeats(): Promise<{ is_local: boolean; last_heartbeat_at: Date | string | null }[]> {
    return this.db
      .selectFrom('scan_nodes')
      .select(['is_local', 'last_heartbeat_at'])
      .where('revoked_at', 'is', null)
      .execute();
  }
}
