// Rampart's own backup: pg_dump's plain data-only format, written and read without pg_dump (the
// embedded server's binaries have none, and an older pg_dump cannot dump a newer server).
export { type DumpOptions, type DumpSummary, dumpDatabase } from './dump.js';
export {
  BackupFormatError,
  FORMAT_VERSION,
  type Header,
  NothingToBackUpError,
  RestoreRefusedError,
} from './format.js';
export { exportPgliteDataDir, type PgliteExportOptions, restorePgliteDataDir } from './pglite.js';
export { type RestoreOptions, type RestoreSummary, restoreDatabase } from './restore.js';
