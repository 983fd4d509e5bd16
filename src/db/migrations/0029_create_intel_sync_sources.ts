import { type Kysely, sql } from 'kysely';

// The sync from the official sources (NVD API 2.0, CISA KEV, EPSS, OSV per ecosystem) keeps its
// progress here, one row per source ('nvd', 'kev', 'epss', 'osv:Debian', …), so that a sync
// stopped mid-way resumes on its next run from the last page it committed, and the feed status
// shows each source's last sync, progress and last error. Intelligence is shared by every
// organisation of the installation: no organization_id, like the other intel_ tables.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table intel_sync_sources (
      source text primary key,
      -- Everything the source changed before this time is loaded (NVD: lastModEndDate of the
      -- last finished window; null until the first full load has finished).
      synced_until timestamptz,
      -- The window under way (NVD) and the next page's startIndex within it.
      window_start timestamptz,
      window_end timestamptz,
      next_index integer not null default 0,
      total_results integer,
      last_started_at timestamptz,
      last_finished_at timestamptz,
      last_success_at timestamptz,
      last_error text
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
