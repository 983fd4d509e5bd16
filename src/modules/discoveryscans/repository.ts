import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { CreatedAtKey } from '../../lib/cursor.js';
import type { DiscoveredHost, ScanTarget } from '../../scanning/types.js';
import type { DiscoveryScan, HostStatus, ReportHost, ScanNotification } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const SCAN_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'targets',
  'exclusions',
  'template_id',
  'node_id',
  'schedule',
  'notifications',
  'responsible_user_id',
  'created_by',
  'last_run_id',
  'last_completed_run_id',
  'last_completed_at',
  'created_at',
  'updated_at',
] as const;

type ScanRow = {
  id: string;
  organization_id: string;
  name: string;
  targets: unknown;
  exclusions: unknown;
  template_id: string;
  node_id: string | null;
  schedule: unknown;
  notifications: unknown;
  responsible_user_id: string | null;
  created_by: string | null;
  last_run_id: string | null;
  last_completed_run_id: string | null;
  last_completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

function toScan(r: ScanRow): DiscoveryScan {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    targets: r.targets as ScanTarget[],
    exclusions: r.exclusions as string[],
    templateId: r.template_id,
    nodeId: r.node_id,
    schedule: (r.schedule as ScheduleOption | null) ?? null,
    notifications: r.notifications as ScanNotification[],
    responsibleUserId: r.responsible_user_id,
    createdBy: r.created_by,
    lastRunId: r.last_run_id,
    lastCompletedRunId: r.last_completed_run_id,
    lastCompletedAt: r.last_completed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface ScanWrite {
  name: string;
  targets: ScanTarget[];
  exclusions: string[];
  templateId: string;
  nodeId: string | null;
  schedule: ScheduleOption | null;
  notifications: ScanNotification[];
  responsibleUserId: string | null;
}

function writeColumns(w: ScanWrite) {
  return {
    name: w.name,
    targets: JSON.stringify(w.targets),
    exclusions: JSON.stringify(w.exclusions),
    template_id: w.templateId,
    node_id: w.nodeId,
    schedule: w.schedule == null ? null : JSON.stringify(w.schedule),
    notifications: JSON.stringify(w.notifications),
    responsible_user_id: w.responsibleUserId,
  };
}

/** Discovery scans, the hosts each run found and each scan's host inventory. */
export class DiscoveryScanRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insert(organizationId: string, id: string, w: ScanWrite, createdBy: string | null, now: Date) {
    const row = await this.db
      .insertInto('discovery_scans')
      .values({
        organization_id: organizationId,
        id,
        ...writeColumns(w),
        created_by: createdBy,
        created_at: now,
        updated_at: now,
      })
      .returning(SCAN_COLUMNS)
      .executeTakeFirstOrThrow();
    return toScan(row);
  }

  async update(organizationId: string, id: string, w: ScanWrite, now: Date) {
    const row = await this.db
      .updateTable('discovery_scans')
      .set({ ...writeColumns(w), updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(SCAN_COLUMNS)
      .executeTakeFirst();
    return row ? toScan(row) : undefined;
  }

  async find(organizationId: string, id: string, db: Db = this.db): Promise<DiscoveryScan | undefined> {
    const row = await db
      .selectFrom('discovery_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toScan(row) : undefined;
  }

  /** Newest first, one beyond the page size (for the cursor). */
  async page(organizationId: string, pageSize: number, after?: CreatedAtKey): Promise<DiscoveryScan[]> {
    let q = this.db
      .selectFrom('discovery_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId);
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', new Date(after.createdAt)),
          eb.and([eb('created_at', '=', new Date(after.createdAt)), eb('id', '<', after.id)]),
        ]),
      );
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize + 1)
      .execute();
    return rows.map(toScan);
  }

  /** Oldest first by offset, as the original service pages. */
  async offset(organizationId: string, start: number, size: number): Promise<DiscoveryScan[]> {
    const rows = await this.db
      .selectFrom('discovery_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .offset(start)
      .limit(size)
      .execute();
    return rows.map(toScan);
  }

  async count(organizationId: string): Promise<number> {
    const r = await this.db
      .selectFrom('discovery_scans')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    const r = await this.db
      .selectFrom('discovery_scans')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('template_id', '=', templateId)
      .executeTakeFirst();
    return r !== undefined;
  }

  async delete(organizationId: string, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of ['discovery_run_hosts', 'discovery_hosts'] as const)
        await trx
          .deleteFrom(table)
          .where('organization_id', '=', organizationId)
          .where('scan_id', '=', id)
          .execute();
      await trx
        .deleteFrom('discovery_scans')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    });
  }

  async setLastRun(organizationId: string, scanId: string, runId: string, db: Db = this.db) {
    await db
      .updateTable('discovery_scans')
      .set({ last_run_id: runId })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }

  /**
   * A batch of a run's hosts. Upserted by address, so that a host reported again (by a retried
   * attempt of the run) is one row with the latest facts.
   */
  async addRunHosts(
    organizationId: string,
    scanId: string,
    runId: string,
    hosts: DiscoveredHost[],
    seenAt: Date,
    trx: Transaction<DB>,
  ) {
    if (hosts.length === 0) return;
    // One row per address: a batch naming a host twice keeps its later facts (one INSERT … ON
    // CONFLICT DO UPDATE may not touch a row twice).
    const unique = [...new Map(hosts.map((h) => [h.address, h])).values()];
    await trx
      .insertInto('discovery_run_hosts')
      .values(
        unique.map((h) => ({
          organization_id: organizationId,
          run_id: runId,
          scan_id: scanId,
          address: h.address,
          hostname: h.hostname,
          mac_address: h.macAddress,
          os_guess: h.osGuess,
          open_ports: h.openPorts,
          closed_ports: h.closedPorts,
          status: 'Found' as const,
          seen_at: seenAt,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'run_id', 'address']).doUpdateSet((eb) => ({
          hostname: eb.ref('excluded.hostname'),
          mac_address: eb.ref('excluded.mac_address'),
          os_guess: eb.ref('excluded.os_guess'),
          open_ports: eb.ref('excluded.open_ports'),
          closed_ports: eb.ref('excluded.closed_ports'),
          seen_at: eb.ref('excluded.seen_at'),
        })),
      )
      .execute();
  }

  async runHosts(organizationId: string, runId: string, trx: Db = this.db) {
    return trx
      .selectFrom('discovery_run_hosts')
      .select(['address', 'hostname', 'mac_address', 'os_guess', 'open_ports', 'closed_ports'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .where('status', '<>', 'Gone')
      .orderBy('address')
      .execute();
  }

  /**
   * Ends a completed run's report: marks each host New (the scan never saw it) or Seen, adds the
   * hosts the previous completed run saw and this one did not as Gone, and folds the run into the
   * scan's inventory.
   */
  async completeReport(
    organizationId: string,
    scanId: string,
    runId: string,
    previousRunId: string | null,
    now: Date,
    trx: Transaction<DB>,
  ) {
    await sql`
      update discovery_run_hosts r
         set status = case when exists (
               select 1 from discovery_hosts h
                where h.organization_id = r.organization_id and h.scan_id = r.scan_id and h.address = r.address
             ) then 'Seen' else 'New' end
       where r.organization_id = ${organizationId} and r.run_id = ${runId} and r.status = 'Found'`.execute(
      trx,
    );
    if (previousRunId)
      await sql`
        insert into discovery_run_hosts
          (organization_id, run_id, scan_id, address, hostname, mac_address, os_guess, status, asset_id, seen_at)
        select h.organization_id, ${runId}, h.scan_id, h.address, h.hostname, h.mac_address, h.os_guess, 'Gone',
               h.asset_id, h.last_seen_at
          from discovery_hosts h
         where h.organization_id = ${organizationId} and h.scan_id = ${scanId} and h.last_run_id = ${previousRunId}
           and not exists (
             select 1 from discovery_run_hosts r
              where r.organization_id = h.organization_id and r.run_id = ${runId} and r.address = h.address)
        on conflict do nothing`.execute(trx);
    await sql`
      insert into discovery_hosts
        (organization_id, scan_id, address, hostname, mac_address, os_guess, asset_id,
         first_seen_at, last_seen_at, first_run_id, last_run_id)
      select organization_id, scan_id, address, hostname, mac_address, os_guess, asset_id,
             seen_at, seen_at, run_id, run_id
        from discovery_run_hosts
       where organization_id = ${organizationId} and run_id = ${runId} and status <> 'Gone'
      on conflict (organization_id, scan_id, address) do update
        set hostname = coalesce(excluded.hostname, discovery_hosts.hostname),
            mac_address = coalesce(excluded.mac_address, discovery_hosts.mac_address),
            os_guess = coalesce(excluded.os_guess, discovery_hosts.os_guess),
            asset_id = coalesce(excluded.asset_id, discovery_hosts.asset_id),
            last_seen_at = excluded.last_seen_at,
            last_run_id = excluded.last_run_id`.execute(trx);
    await trx
      .updateTable('discovery_scans')
      .set({ last_completed_run_id: runId, last_completed_at: now, last_run_id: runId })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }

  async setAssetIds(
    organizationId: string,
    runId: string,
    byAddress: { address: string; assetId: string }[],
    trx: Transaction<DB>,
  ) {
    for (const { address, assetId } of byAddress)
      await trx
        .updateTable('discovery_run_hosts')
        .set({ asset_id: assetId })
        .where('organization_id', '=', organizationId)
        .where('run_id', '=', runId)
        .where('address', '=', address)
        .execute();
  }

  /** A run's report, by address, with each host's first and last sighting by the scan. */
  async report(
    organizationId: string,
    runId: string,
    q: { status?: HostStatus | 'Live'; offset: number; limit: number },
  ): Promise<{ items: ReportHost[]; totalCount: number }> {
    let base = this.db
      .selectFrom('discovery_run_hosts as r')
      .leftJoin('discovery_hosts as h', (j) =>
        j
          .onRef('h.organization_id', '=', 'r.organization_id')
          .onRef('h.scan_id', '=', 'r.scan_id')
          .onRef('h.address', '=', 'r.address'),
      )
      .where('r.organization_id', '=', organizationId)
      .where('r.run_id', '=', runId);
    if (q.status === 'Live') base = base.where('r.status', '<>', 'Gone');
    else if (q.status) base = base.where('r.status', '=', q.status);
    const total = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .select([
        'r.address',
        'r.hostname',
        'r.mac_address',
        'r.os_guess',
        'r.open_ports',
        'r.closed_ports',
        'r.status',
        'r.asset_id',
        'r.seen_at',
        'h.first_seen_at',
        'h.last_seen_at',
      ])
      .orderBy(sql`r.address::inet`)
      .offset(q.offset)
      .limit(q.limit)
      .execute();
    return {
      totalCount: Number(total.n),
      items: rows.map((r) => ({
        address: r.address,
        hostname: r.hostname,
        macAddress: r.mac_address,
        osGuess: r.os_guess,
        openPorts: r.open_ports,
        closedPorts: r.closed_ports,
        status: r.status,
        assetId: r.asset_id,
        seenAt: r.seen_at,
        firstSeenAt: r.first_seen_at,
        lastSeenAt: r.last_seen_at,
      })),
    };
  }

  /** A completed run's hosts with their status and open ports (Gone ones with none). */
  async reportedHosts(organizationId: string, runId: string) {
    const rows = await this.db
      .selectFrom('discovery_run_hosts')
      .select(['address', 'hostname', 'open_ports', 'status'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .where('status', 'in', ['New', 'Seen', 'Gone'])
      .orderBy('address')
      .execute();
    return rows.map((r) => ({
      address: r.address,
      hostname: r.hostname,
      openPorts: r.status === 'Gone' ? [] : r.open_ports,
      status: r.status as 'New' | 'Seen' | 'Gone',
    }));
  }

  /** How many hosts of each status a run's report holds. */
  async reportCounts(organizationId: string, runId: string): Promise<Record<HostStatus, number>> {
    const rows = await this.db
      .selectFrom('discovery_run_hosts')
      .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .groupBy('status')
      .execute();
    const counts: Record<HostStatus, number> = { Found: 0, New: 0, Seen: 0, Gone: 0 };
    for (const r of rows) counts[r.status] = Number(r.n);
    return counts;
  }
}
