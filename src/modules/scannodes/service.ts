import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { SCAN_KINDS, type ScanKind } from '../../scanning/types.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { ScanNodeListRow, ScanNodeRepository } from './repository.js';
import {
  ENROLMENT_TOKEN_PREFIX,
  looksLike,
  NODE_KEY_PREFIX,
  newEnrolmentToken,
  newNodeKey,
  sha256,
} from './secrets.js';
import type { ScanNode, ScanNodeDescription, ScanNodeEnrolment, ScanNodeState } from './types.js';

/** A node whose last heartbeat is older than this is Offline (and its runs' leases lapse too). */
export const ONLINE_SECONDS = 60;
export const DEFAULT_ENROLMENT_HOURS = 24;
export const MAX_ENROLMENT_HOURS = 24 * 7;
export const MAX_CAPACITY = 64;
export const LOCAL_NODE_NAME = 'local';

const ENROL_REFUSED =
  'The enrolment token is unknown, already used or expired: ask an Admin for a new one (Scan nodes → Enrol a node).';

const SYSTEM: ServiceContext['actor'] = { type: 'system', id: null };

/** Checks what a node says of itself; every problem names its field. */
function checkDescription(d: ScanNodeDescription): void {
  if (d.name !== undefined && (d.name.trim().length === 0 || d.name.trim().length > 100))
    throw invalid('name', 'must have 1 to 100 characters');
  if (d.kinds !== undefined) {
    const unknown = d.kinds.filter((k) => !(SCAN_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0)
      throw invalid('kinds', `must be among ${SCAN_KINDS.join(', ')}, not ${unknown.join(', ')}`);
  }
  if (
    d.capacity !== undefined &&
    (!Number.isInteger(d.capacity) || d.capacity < 1 || d.capacity > MAX_CAPACITY)
  )
    throw invalid('capacity', `must be a whole number from 1 to ${MAX_CAPACITY}`);
  if (d.version !== undefined && d.version.length > 100)
    throw invalid('version', 'must have at most 100 characters');
}

/**
 * Scan nodes: enrolment with one-time tokens an Admin creates, the nodes' own keys (only their
 * SHA-256 is kept; shown once), heartbeats, revocation, and the server's built-in local node.
 */
export class ScanNodeService {
  constructor(
    private readonly repo: ScanNodeRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  private toNode(row: ScanNodeListRow): ScanNode {
    const last = row.last_heartbeat_at ? new Date(row.last_heartbeat_at) : null;
    const online =
      row.revoked_at === null &&
      last !== null &&
      this.clock().getTime() - last.getTime() < ONLINE_SECONDS * 1000;
    return {
      id: row.id,
      organizationId: row.organization_id,
      name: row.name,
      kinds: row.kinds as ScanKind[],
      version: row.version,
      capacity: row.capacity,
      local: row.is_local,
      lastHeartbeatAt: last,
      revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
      createdAt: new Date(row.created_at),
      state: online ? 'Online' : 'Offline',
    };
  }

  /** A one-time enrolment token for the caller's organisation; the token is in this answer only. */
  async createEnrolment(
    ctx: ServiceContext,
    input: { expiresInHours?: number } = {},
  ): Promise<{ enrolment: ScanNodeEnrolment; token: string }> {
    const hours = input.expiresInHours ?? DEFAULT_ENROLMENT_HOURS;
    if (!Number.isInteger(hours) || hours < 1 || hours > MAX_ENROLMENT_HOURS)
      throw invalid('expiresInHours', `must be a whole number from 1 to ${MAX_ENROLMENT_HOURS}`);
    const now = this.clock();
    const token = newEnrolmentToken();
    const enrolment: ScanNodeEnrolment = {
      id: uuidv7(now.getTime()),
      organizationId: ctx.organizationId,
      expiresAt: new Date(now.getTime() + hours * 3_600_000),
      createdAt: now,
    };
    await this.repo.insertEnrolment({
      organizationId: ctx.organizationId,
      id: enrolment.id,
      tokenHash: sha256(token),
      expiresAt: enrolment.expiresAt,
      createdBy: ctx.userId ?? null,
      now,
    });
    await this.audit.record(ctx, 'scannode.enrolment.created', {
      type: 'scannode-enrolment',
      id: enrolment.id,
    });
    return { enrolment, token };
  }

  /**
   * Enrols a node with a one-time token: the node and its key (in this answer only). A token that
   * is unknown, used or expired is refused (401), all alike.
   */
  async enrol(token: string, description: ScanNodeDescription): Promise<{ node: ScanNode; nodeKey: string }> {
    checkDescription(description);
    if (!looksLike(ENROLMENT_TOKEN_PREFIX, token)) throw AppError.of(Problems.Unauthenticated, ENROL_REFUSED);
    const nodeKey = newNodeKey();
    const now = this.clock();
    const row = await this.repo.transaction(async (trx) => {
      const enrolment = await this.repo.lockEnrolment(trx, sha256(token));
      if (
        !enrolment ||
        enrolment.used_at !== null ||
        new Date(enrolment.expires_at).getTime() <= now.getTime()
      )
        throw AppError.of(Problems.Unauthenticated, ENROL_REFUSED);
      const node = await this.repo.insertNode(
        {
          organizationId: enrolment.organization_id,
          id: uuidv7(now.getTime()),
          name: description.name?.trim() || 'scan node',
          kinds: description.kinds ?? [...SCAN_KINDS],
          version: description.version ?? '',
          capacity: description.capacity ?? 1,
          local: false,
          keyHash: sha256(nodeKey),
          enrolmentId: enrolment.id,
          now,
        },
        trx,
      );
      await this.repo.markEnrolmentUsed(trx, enrolment.organization_id, enrolment.id, node.id, now);
      return node;
    });
    const node = this.toNode(row);
    await this.audit.record(
      { organizationId: row.organization_id!, actor: SYSTEM },
      'scannode.enrolled',
      { type: 'scannode', id: node.id },
      { name: node.name, kinds: node.kinds },
    );
    return { node, nodeKey };
  }

  /** The node of a key; null when the key is missing, malformed, unknown or revoked. */
  async authenticate(nodeKey: string | undefined): Promise<ScanNode | null> {
    if (!nodeKey || !looksLike(NODE_KEY_PREFIX, nodeKey)) return null;
    const row = await this.repo.findByKeyHash(sha256(nodeKey));
    if (!row || row.revoked_at !== null) return null;
    return this.toNode(row);
  }

  /** The organisation's nodes and the local node. */
  async list(ctx: ServiceContext): Promise<ScanNode[]> {
    return (await this.repo.listVisible(ctx.organizationId)).map((r) => this.toNode(r));
  }

  /** A node the organisation sees (its own or the local node); 404 otherwise. */
  async get(ctx: ServiceContext, id: string, trx?: Transaction<DB>): Promise<ScanNode> {
    const row = await this.repo.findVisible(ctx.organizationId, id, trx);
    if (!row) throw AppError.of(Problems.NotFound, `No scan node ${id} in your organisation.`);
    return this.toNode(row);
  }

  /** Revokes a node's key at once: its next call is refused (401) and its runs' leases lapse. */
  async revoke(ctx: ServiceContext, id: string): Promise<ScanNode> {
    const current = await this.get(ctx, id);
    if (current.local)
      throw AppError.of(
        Problems.Conflict,
        'The local scan node runs inside the server and has no key to revoke; set RAMPART_LOCAL_SCAN_NODE=false to turn it off.',
      );
    if (current.revokedAt) return current;
    const row = await this.repo.revoke(ctx.organizationId, id, this.clock());
    const node = row ? this.toNode(row) : await this.get(ctx, id);
    await this.audit.record(ctx, 'scannode.revoked', { type: 'scannode', id }, { name: node.name });
    return node;
  }

  /** Records a node's heartbeat and what it says of itself; 401 when it was revoked meanwhile. */
  async heartbeat(node: ScanNode, description: Omit<ScanNodeDescription, 'name'> = {}): Promise<ScanNode> {
    checkDescription(description);
    const row = await this.repo.heartbeat(node.organizationId, node.id, { at: this.clock(), ...description });
    if (!row) throw AppError.of(Problems.Unauthenticated, 'This scan node was revoked: enrol it again.');
    return this.toNode(row);
  }

  /** The server's own node, made on first start; it takes the kinds the server has engines for. */
  async ensureLocal(description: {
    kinds: ScanKind[];
    version: string;
    capacity: number;
  }): Promise<ScanNode> {
    checkDescription(description);
    const updated = await this.repo.updateLocal(description);
    if (updated) return this.toNode(updated);
    const now = this.clock();
    try {
      await this.repo.insertNode({
        organizationId: null,
        id: uuidv7(now.getTime()),
        name: LOCAL_NODE_NAME,
        ...description,
        local: true,
        keyHash: null,
        enrolmentId: null,
        now,
      });
    } catch (error) {
      // Another instance made it first.
      if (!(await this.repo.findLocal())) throw error;
    }
    const row = await this.repo.findLocal();
    if (!row) throw new Error('The local scan node could not be created.');
    return this.toNode(row);
  }

  /**
   * For the metrics, across organisations and labelled by bounded values only: the nodes not
   * revoked by state (Online as the API says it) and whether local, and, of those that have ever
   * heartbeated, the ages in seconds of the newest and of the oldest last heartbeat.
   */
  async figures(): Promise<ScanNodeFigures> {
    const now = this.clock().getTime();
    const rows = await this.repo.liveHeartbeats();
    const nodes = new Map<string, { local: boolean; state: ScanNodeState; count: number }>();
    const ages = new Map<boolean, { newest: number; oldest: number }>();
    for (const row of rows) {
      const at = row.last_heartbeat_at === null ? null : new Date(row.last_heartbeat_at).getTime();
      const age = at === null ? null : Math.max(0, (now - at) / 1000);
      const state: ScanNodeState = age !== null && age < ONLINE_SECONDS ? 'Online' : 'Offline';
      const key = `${row.is_local}:${state}`;
      const entry = nodes.get(key) ?? { local: row.is_local, state, count: 0 };
      entry.count += 1;
      nodes.set(key, entry);
      if (age === null) continue;
      const range = ages.get(row.is_local);
      ages.set(row.is_local, {
        newest: Math.min(range?.newest ?? age, age),
        oldest: Math.max(range?.oldest ?? age, age),
      });
    }
    return {
      nodes: [...nodes.values()],
      heartbeatAges: [...ages.entries()].map(([local, range]) => ({ local, ...range })),
    };
  }
}

/** What the metrics tell of the scan nodes (ScanNodeService.figures). */
export interface ScanNodeFigures {
  nodes: { local: boolean; state: ScanNodeState; count: number }[];
  heartbeatAges: { local: boolean; newest: number; oldest: number }[];
}
