import type { FindingsTable } from '../../db/schema.js';

/** The columns that say where a finding is, as every query that lists findings selects them. */
export type LocationColumns = Pick<
  FindingsTable,
  | 'location_kind'
  | 'port'
  | 'protocol'
  | 'url'
  | 'parameter'
  | 'file_path'
  | 'line'
  | 'package_name'
  | 'package_version'
>;

/** A finding's `Location` on the wire (findings, and a ticket's linked findings). */
export const toLocationDto = (f: LocationColumns) => ({
  Kind: f.location_kind,
  Port: f.port,
  Protocol: f.protocol,
  Url: f.url,
  Parameter: f.parameter,
  File: f.file_path,
  Line: f.line,
  Package: f.package_name,
  Version: f.package_version,
});
