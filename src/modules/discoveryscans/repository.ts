import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { HostStatus, ReportHost } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

/** The hosts each discovery run found, and each scan's host inventory (the scans are saved scans). */
export class DiscoveryReportRepository {
  constructor(private readonly db: Kysely<DB>) {}

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

  /** The hosts a completed run reported New: how many, and the first `limit` of them. */
  async newHosts(organizationId: string, runId: string, limit: number, trx: Db = this.db) {
    const rows = await trx
      .selectFrom('discovery_run_hosts')
      .select(['address', 'hostname', (eb) => eb.fn.countAll<string>().over().as('total')])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .where('status', '=', 'New')
      .orderBy('address')
      .limit(limit)
      .execute();
    return {
      count: Number(rows[0]?.total ?? 0),
      hosts: rows.map((r) => ({ address: r.address, hostname: r.hostname })),
    };
  }

  /**
   * Ends a completed run's report: marks each host New (the scan never saw it) or Seen, adds the
   * hosts the previous completed run saw and this one did not as Gone, and folds the run into the
   * scan's inventory (the scan's last completed run is set with the run's end).
   */
  async completeReport(
    organizationId: string,
    scanId: string,
    runId: string,
    previousRunId: string | null,
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
