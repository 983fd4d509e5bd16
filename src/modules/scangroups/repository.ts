import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { CreatedAtKey } from '../../lib/cursor.js';
import type {
  AssetMonitor,
  GroupNote,
  GroupScanSettings,
  ScanGroup,
  ScanGroupSettings,
  ScanNotification,
  ScanningMode,
} from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const GROUP_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'description',
  'responsible_user_id',
  'scanning_mode',
  'system_settings',
  'web_settings',
  'notifications',
  'notes',
  'created_by',
  'created_at',
  'updated_at',
] as const;

type GroupRow = {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  responsible_user_id: string | null;
  scanning_mode: string;
  system_settings: unknown;
  web_settings: unknown;
  notifications: unknown;
  notes: unknown;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

type MonitorRow = {
  id: string;
  group_id: string;
  is_active: boolean;
  discovery_scan_id: string;
  options: unknown;
};

type MonitorOptions = Pick<AssetMonitor, 'scheduleId' | 'system' | 'web'>;

function toMonitor(r: MonitorRow): AssetMonitor {
  const o = r.options as MonitorOptions;
  return { id: r.id, isActive: r.is_active, discoveryScanId: r.discovery_scan_id, ...o };
}

function toGroup(r: GroupRow, monitors: AssetMonitor[]): ScanGroup {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    responsibleUserId: r.responsible_user_id,
    scanningMode: r.scanning_mode as ScanningMode,
    system: r.system_settings as GroupScanSettings,
    web: r.web_settings as GroupScanSettings,
    notifications: r.notifications as ScanNotification[],
    monitors,
    notes: ((r.notes as { at: string; message: string }[]) ?? []).map((n) => ({
      at: new Date(n.at),
      message: n.message,
    })),
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface GroupWrite extends ScanGroupSettings {
  monitors: AssetMonitor[];
}

/** A scan a group's monitoring added, by the host (and port) it is for. */
export interface TrackedScan {
  kind: 'System' | 'Web';
  address: string;
  port: number;
  scanId: string;
  knownPorts: number[];
}

const MAX_NOTES = 50;

/** Scan groups, their asset monitoring configurations and the scans their monitoring added. */
export class ScanGroupRepository {
  constructor(private readonly db: Kysely<DB>) {}

  private async monitorsOf(db: Db, organizationId: string, groupIds: string[]) {
    if (groupIds.length === 0) return new Map<string, AssetMonitor[]>();
    const rows = await db
      .selectFrom('scan_group_monitors')
      .select(['id', 'group_id', 'is_active', 'discovery_scan_id', 'options'])
      .where('organization_id', '=', organizationId)
      .where('group_id', 'in', groupIds)
      .orderBy('group_id')
      .orderBy('position')
      .execute();
    const byGroup = new Map<string, AssetMonitor[]>();
    for (const r of rows) byGroup.set(r.group_id, [...(byGroup.get(r.group_id) ?? []), toMonitor(r)]);
    return byGroup;
  }

  private async withMonitors(db: Db, organizationId: string, rows: GroupRow[]): Promise<ScanGroup[]> {
    const monitors = await this.monitorsOf(
      db,
      organizationId,
      rows.map((r) => r.id),
    );
    return rows.map((r) => toGroup(r, monitors.get(r.id) ?? []));
  }

  private async writeMonitors(
    trx: Transaction<DB>,
    organizationId: string,
    groupId: string,
    monitors: AssetMonitor[],
  ) {
    await trx
      .deleteFrom('scan_group_monitors')
      .where('organization_id', '=', organizationId)
      .where('group_id', '=', groupId)
      .execute();
    if (monitors.length === 0) return;
    await trx
      .insertInto('scan_group_monitors')
      .values(
        monitors.map((m, position) => ({
          organization_id: organizationId,
          group_id: groupId,
          id: m.id,
          position,
          is_active: m.isActive,
          discovery_scan_id: m.discoveryScanId,
          options: JSON.stringify({ scheduleId: m.scheduleId, system: m.system, web: m.web }),
        })),
      )
      .execute();
  }

  private columns(w: GroupWrite) {
    return {
      name: w.name,
      description: w.description,
      responsible_user_id: w.responsibleUserId,
      scanning_mode: w.scanningMode,
      system_settings: JSON.stringify(w.system),
      web_settings: JSON.stringify(w.web),
      notifications: JSON.stringify(w.notifications),
    };
  }

  async insert(organizationId: string, id: string, w: GroupWrite, createdBy: string | null, now: Date) {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('scan_groups')
        .values({
          organization_id: organizationId,
          id,
          ...this.columns(w),
          notes: '[]',
          created_by: createdBy,
          created_at: now,
          updated_at: now,
        })
        .returning(GROUP_COLUMNS)
        .executeTakeFirstOrThrow();
      await this.writeMonitors(trx, organizationId, id, w.monitors);
      return toGroup(row, w.monitors);
    });
  }

  async update(organizationId: string, id: string, w: GroupWrite, now: Date) {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('scan_groups')
        .set({ ...this.columns(w), updated_at: now })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returning(GROUP_COLUMNS)
        .executeTakeFirst();
      if (!row) return undefined;
      await this.writeMonitors(trx, organizationId, id, w.monitors);
      return toGroup(row, w.monitors);
    });
  }

  async find(organizationId: string, id: string): Promise<ScanGroup | undefined> {
    const row = await this.db
      .selectFrom('scan_groups')
      .select(GROUP_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? (await this.withMonitors(this.db, organizationId, [row]))[0] : undefined;
  }

  /** Oldest first, one beyond the page size (for the cursor). */
  async page(organizationId: string, pageSize: number, after?: CreatedAtKey): Promise<ScanGroup[]> {
    let q = this.db
      .selectFrom('scan_groups')
      .select(GROUP_COLUMNS)
      .where('organization_id', '=', organizationId);
    if (after)
      q = q.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '>', tuple(new Date(after.createdAt), after.id)),
      );
    const rows = await q
      .orderBy('created_at')
      .orderBy('id')
      .limit(pageSize + 1)
      .execute();
    return this.withMonitors(this.db, organizationId, rows);
  }

  async names(organizationId: string): Promise<{ id: string; name: string }[]> {
    return this.db
      .selectFrom('scan_groups')
      .select(['id', 'name'])
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  async count(organizationId: string): Promise<number> {
    const r = await this.db
      .selectFrom('scan_groups')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async delete(organizationId: string, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of ['scan_group_monitors', 'scan_group_tracked'] as const)
        await trx
          .deleteFrom(table)
          .where('organization_id', '=', organizationId)
          .where('group_id', '=', id)
          .execute();
      await trx
        .deleteFrom('scan_groups')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    });
  }

  /** The active monitors that follow a discovery scan, by group. */
  async followers(
    organizationId: string,
    discoveryScanId: string,
  ): Promise<{ groupId: string; monitor: AssetMonitor }[]> {
    const rows = await this.db
      .selectFrom('scan_group_monitors')
      .select(['id', 'group_id', 'is_active', 'discovery_scan_id', 'options'])
      .where('organization_id', '=', organizationId)
      .where('discovery_scan_id', '=', discoveryScanId)
      .where('is_active', '=', true)
      .orderBy('group_id')
      .orderBy('position')
      .execute();
    return rows.map((r) => ({ groupId: r.group_id, monitor: toMonitor(r) }));
  }

  async tracked(organizationId: string, groupId: string, kind: 'System' | 'Web'): Promise<TrackedScan[]> {
    const rows = await this.db
      .selectFrom('scan_group_tracked')
      .select(['kind', 'address', 'port', 'scan_id', 'known_ports'])
      .where('organization_id', '=', organizationId)
      .where('group_id', '=', groupId)
      .where('kind', '=', kind)
      .execute();
    return rows.map((r) => ({
      kind: r.kind,
      address: r.address,
      port: r.port,
      scanId: r.scan_id,
      knownPorts: r.known_ports,
    }));
  }

  async track(organizationId: string, groupId: string, t: TrackedScan, now: Date): Promise<void> {
    await this.db
      .insertInto('scan_group_tracked')
      .values({
        organization_id: organizationId,
        group_id: groupId,
        kind: t.kind,
        address: t.address,
        port: t.port,
        scan_id: t.scanId,
        known_ports: t.knownPorts,
        created_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'group_id', 'kind', 'address', 'port']).doUpdateSet((eb) => ({
          scan_id: eb.ref('excluded.scan_id'),
          known_ports: eb.ref('excluded.known_ports'),
        })),
      )
      .execute();
  }

  async untrack(organizationId: string, groupId: string, t: Pick<TrackedScan, 'kind' | 'address' | 'port'>) {
    await this.db
      .deleteFrom('scan_group_tracked')
      .where('organization_id', '=', organizationId)
      .where('group_id', '=', groupId)
      .where('kind', '=', t.kind)
      .where('address', '=', t.address)
      .where('port', '=', t.port)
      .execute();
  }

  async setKnownPorts(organizationId: string, groupId: string, t: TrackedScan, ports: number[]) {
    await this.db
      .updateTable('scan_group_tracked')
      .set({ known_ports: ports })
      .where('organization_id', '=', organizationId)
      .where('group_id', '=', groupId)
      .where('kind', '=', t.kind)
      .where('address', '=', t.address)
      .where('port', '=', t.port)
      .execute();
  }

  /** Adds notes, keeping the newest MAX_NOTES. */
  async addNotes(organizationId: string, groupId: string, notes: GroupNote[]): Promise<void> {
    if (notes.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('scan_groups')
        .select('notes')
        .where('organization_id', '=', organizationId)
        .where('id', '=', groupId)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return;
      const kept = [
        ...((row.notes as { at: string; message: string }[]) ?? []),
        ...notes.map((n) => ({ at: n.at.toISOString(), message: n.message })),
      ].slice(-MAX_NOTES);
      await trx
        .updateTable('scan_groups')
        .set({ notes: JSON.stringify(kept) })
        .where('organization_id', '=', organizationId)
        .where('id', '=', groupId)
        .execute();
    });
  }
}
