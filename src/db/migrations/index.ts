import type { Migration } from 'kysely';
import * as m0001 from './0001_create_core_tables.js';
import * as m0002 from './0002_create_vulnerability_model.js';
import * as m0003 from './0003_add_uuidv7_function.js';
import * as m0004 from './0004_add_finding_search.js';
import * as m0005 from './0005_index_findings_by_risk.js';
import * as m0006 from './0006_create_asset_software.js';
import * as m0007 from './0007_create_imports.js';
import * as m0008 from './0008_index_finding_events_by_import.js';
import * as m0009 from './0009_add_finding_last_import.js';
import * as m0010 from './0010_create_vulnerability_intelligence.js';
import * as m0011 from './0011_drop_time_defaults.js';
import * as m0012 from './0012_track_sql_functions.js';
import * as m0013 from './0013_create_jobs.js';
import * as m0014 from './0014_create_schedules.js';
import * as m0015 from './0015_create_allowed_targets.js';
import * as m0016 from './0016_create_scan_nodes_and_runs.js';
import * as m0017 from './0017_create_discovery_scans.js';
import * as m0018 from './0018_create_system_scans.js';
import * as m0019 from './0019_create_web_scans.js';
import * as m0020 from './0020_create_scan_groups.js';
import * as m0021 from './0021_create_finding_sightings.js';
import * as m0022a from './0022_a_restore_default_slas.js';
import * as m0022b from './0022_b_add_kev_sla.js';
import * as m0022c from './0022_c_index_imports_by_file.js';
import * as m0024a from './0024_a_add_osv_upstream.js';
import * as m0024b from './0024_b_add_finding_confidence.js';
import * as m0025 from './0025_add_scan_run_refusals.js';
import * as m0026 from './0026_rekey_check_vulnerabilities.js';
import * as m0029 from './0029_create_intel_sync_sources.js';
import * as m0030a from './0030_a_create_finding_history.js';
import * as m0030b from './0030_b_create_event_outbox.js';
import * as m0030c from './0030_c_create_notifications.js';
import * as m0030d from './0030_d_add_audit_retention.js';
import * as m0030e from './0030_e_create_reports.js';
import * as m0030f from './0030_f_create_notification_preferences.js';
import * as m0031a from './0031_a_create_idempotency_keys.js';
import * as m0031b from './0031_b_create_mfa.js';
import * as m0031c from './0031_c_create_sso_providers.js';
import * as m0032 from './0032_create_people.js';

/** Every migration, in order. Listed explicitly so the same code runs from src/ and dist/. */
export const migrations: Record<string, Migration> = {
  '0001_create_core_tables': m0001,
  '0002_create_vulnerability_model': m0002,
  '0003_add_uuidv7_function': m0003,
  '0004_add_finding_search': m0004,
  '0005_index_findings_by_risk': m0005,
  '0006_create_asset_software': m0006,
  '0007_create_imports': m0007,
  '0008_index_finding_events_by_import': m0008,
  '0009_add_finding_last_import': m0009,
  '0010_create_vulnerability_intelligence': m0010,
  '0011_drop_time_defaults': m0011,
  '0012_track_sql_functions': m0012,
  '0013_create_jobs': m0013,
  '0014_create_schedules': m0014,
  '0015_create_allowed_targets': m0015,
  '0016_create_scan_nodes_and_runs': m0016,
  '0017_create_discovery_scans': m0017,
  '0018_create_system_scans': m0018,
  '0019_create_web_scans': m0019,
  '0020_create_scan_groups': m0020,
  '0021_create_finding_sightings': m0021,
  '0022_a_restore_default_slas': m0022a,
  '0022_b_add_kev_sla': m0022b,
  '0022_c_index_imports_by_file': m0022c,
  '0024_a_add_osv_upstream': m0024a,
  '0024_b_add_finding_confidence': m0024b,
  '0025_add_scan_run_refusals': m0025,
  '0026_rekey_check_vulnerabilities': m0026,
  '0029_create_intel_sync_sources': m0029,
  '0030_a_create_finding_history': m0030a,
  '0030_b_create_event_outbox': m0030b,
  '0030_c_create_notifications': m0030c,
  '0030_d_add_audit_retention': m0030d,
  '0030_e_create_reports': m0030e,
  '0030_f_create_notification_preferences': m0030f,
  '0031_a_create_idempotency_keys': m0031a,
  '0031_b_create_mfa': m0031b,
  '0031_c_create_sso_providers': m0031c,
  '0032_create_people': m0032,
};
