import { type Kysely, sql } from 'kysely';

// Rampart's checks were keyed by the scan kind that reported them (`rule:rampart system
// scan:<check id>`, `rule:rampart web scan:<check id>`), so a TLS issue seen by both scan kinds was
// two vulnerabilities and two findings. Check findings are now keyed by the catalogue
// (`rule:rampart:<check id>`, src/scanning/checks CHECK_RULE_SOURCE). This moves the existing
// vulnerabilities to the new key and recomputes their findings' deduplication keys with the same
// formula as the import merge (sha256 of asset id, vulnerability key and location key), so that
// the next scan finds them again — keeping their state, decisions, tickets and history — instead
// of fixing them and opening new ones. System scans' first; a web scan's check whose key the
// system scan's took already keeps its old key: its findings (TLS on a URL, now filed on the
// host's port) are closed by the web scan's next run as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const kind of ['system', 'web']) {
    const prefix = `rule:rampart ${kind} scan:`;
    await sql`
      update vulnerabilities v set key = 'rule:rampart:' || substr(v.key, ${prefix.length + 1})
      where v.key like ${`${prefix}%`}
        and not exists (
          select 1 from vulnerabilities o
          where o.organization_id = v.organization_id
            and o.key = 'rule:rampart:' || substr(v.key, ${prefix.length + 1}))`.execute(db);
  }
  await sql`
    update findings f set dedup_key = encode(sha256(convert_to(
      f.asset_id::text || '|' || v.key || '|' ||
      case f.location_kind
        when 'Port' then 'port:' || coalesce(f.protocol, 'tcp') || '/' || f.port
        when 'Url' then 'url:' || coalesce(f.url, '') || '#' || coalesce(f.parameter, '')
        when 'File' then 'file:' || coalesce(f.file_path, '') || ':' || coalesce(f.line::text, '')
        when 'Package' then 'package:' || coalesce(f.package_name, '') || '@' || coalesce(f.package_version, '')
          || case when coalesce(f.file_path, '') <> '' then ':' || f.file_path else '' end
        else 'none'
      end, 'UTF8')), 'hex')
    from vulnerabilities v
    where v.organization_id = f.organization_id and v.id = f.vulnerability_id
      and v.key like 'rule:rampart:%'`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
