import type { LocationKind } from '../../db/schema.js';

/** The columns that say where a finding is, as every query that lists findings selects them. */
export interface LocationColumns {
  location_kind: LocationKind;
  port: number | null;
  protocol: string | null;
  url: string | null;
  parameter: string | null;
  file_path: string | null;
  line: number | null;
  package_name: string | null;
  package_version: string | null;
}

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
