import { type Kysely, sql } from 'kysely';

// osv.dev's distribution records name their CVE in `upstream` (Debian's DSA-, DLA-, DEBIAN-CVE-,
// Ubuntu's UBUNTU-CVE-) and a USN names the CVEs it fixes in `related`: without them a record
// loaded for a banner's build decides nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table intel_osv
      add column upstream text[] not null default '{}',
      add column related text[] not null default '{}'`.execute(db);
  // A CVE's records are looked up by any of the three lists (the intelligence of a CVE).
  await sql`create index intel_osv_upstream_idx on intel_osv using gin (upstream)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
