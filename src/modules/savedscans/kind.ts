// A saved scan is a scan kept with its targets, template, node and schedule, and run on demand or
// by its schedule. Each kind (discovery, system, web) is described once by a ScanKindDefinition in
// its own module (src/modules/<kind>scans/definition.ts, beside the table it owns); this module
// holds what they share: one service, one repository over the kind's table, one route factory.
//
// A new kind: its tables (a migration), a `<kind>scans` module with its definition, types and
// schemas, a subclass of SavedScanService for what only it does (a report, an ingestion job), its
// construction in src/services.ts, its routes in src/modules/index.ts (CONTRIBUTING.md says it all).

import type { Transaction } from 'kysely';
import type { Static, TSchema } from 'typebox';
import type { DB } from '../../db/schema.js';
import type { Channel } from '../../http/channels.js';
import type { ScanResults } from '../../scanning/contract.js';
import type { ScanTarget } from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { ScanStartJob } from './schedules.js';
import type { RunOrder, SavedScan, SavedScanRun, SavedScanWrite, ScanKind } from './types.js';

/** A row of a kind's scan table: the common columns, and the kind's own as the kind reads them. */
export interface ScanRow {
  id: string;
  organization_id: string;
  name: string;
  template_id: string;
  node_id: string | null;
  schedule: unknown;
  created_by: string | null;
  last_run_id: string | null;
  last_completed_run_id: string | null;
  last_completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  [column: string]: unknown;
}

/** A kind's scan table: its name, its own columns and how they map to the kind's scan. */
export interface ScanTable<Scan extends SavedScan, Write extends SavedScanWrite> {
  name: string;
  /** The kind's own columns, beside the common ones. */
  columns: readonly string[];
  /** The kind's own fields of a row (the common ones are read here). */
  fromRow(row: ScanRow): Omit<Scan, keyof SavedScan>;
  /** The kind's own columns of a write (the common ones are written here). */
  toColumns(write: Write): Record<string, unknown>;
  /** Where a run's results are kept, one row per result key (address, URL) and run. */
  results: RunResultsTable;
  /** The tables of the kind's run results, keyed by `scan_id`: they go with the scan. */
  runTables: readonly string[];
}

/** The `targets` and `exclusions` columns of the kinds that scan targets, as a scan reads them. */
export function targetsOfRow(r: ScanRow): { targets: ScanTarget[]; exclusions: string[] } {
  return { targets: r.targets as ScanTarget[], exclusions: r.exclusions as string[] };
}

/** The `targets` and `exclusions` columns as a write sets them. */
export function targetColumns(w: { targets: ScanTarget[]; exclusions: string[] }) {
  return { targets: JSON.stringify(w.targets), exclusions: JSON.stringify(w.exclusions) };
}

/**
 * A kind's table of its runs' results: rows keyed by organisation, run and `key`, with `scan_id`
 * and `seen_at`. A result sent again (by a retried attempt of the run) replaces the `replaced`
 * columns of its row.
 */
export interface RunResultsTable {
  name: string;
  key: string;
  replaced: readonly string[];
}

/** A result a kind keeps: its key, and its columns beside the key, the run, the scan and `seen_at`. */
export interface ResultRow {
  key: string;
  columns: Record<string, unknown>;
}

/** What the routes show of a scan beside the scan itself. */
export interface ScanView {
  lastRun: SavedScanRun | null;
  nextRunAt: Date | null;
  scheduleId: string | null;
}

/** An operation's texts in the API document. */
export interface OperationText {
  summary: string;
  description?: string;
}

/** The texts of a kind's routes that differ between kinds. */
export interface ScanRouteTexts {
  /** How the targets are checked (400, 422), as create, update and start tell it. */
  targetRules: string;
  /** What the nodes that may run a scan serve, as start tells it: `web scans`. */
  nodesServing: string;
  /** What create says (the targets' rules included). */
  create: string;
  /** Get's summary, when more than that it answers the scan with its latest run. */
  get?: string;
  delete: Required<OperationText>;
  /** What stopping does to the run under way. */
  stop: string;
}

/** How a kind's scans are served: where, to which channels, with which schemas and texts. */
export interface ScanRoutesDescription<Scan extends SavedScan, Input, Body extends TSchema> {
  /** The URL base, `/discoveryscans`. */
  base: string;
  tags: string[];
  /** The channels of every route but create (whose body is Rampart's own): the latest one when left out. */
  channels?: readonly Channel[];
  /** Operation ids are `list<Name>s`, `create<Name>`, …: `DiscoveryScan`. */
  operationName: string;
  /** Where a run is started: `POST <base>/:Id/runs` or `POST <base>/:Id/start`. */
  startPath: 'runs' | 'start';
  /** The body taken, the scan answered (a list holds them), and the list's query when not the plain one. */
  schemas: { body: Body; scan: TSchema; listQuery?: TSchema };
  /** The texts of the routes that differ between kinds; the others say the same of every kind. */
  texts: ScanRouteTexts;
  /** `GET <base>/:Id/runs/latest`, for kinds that answer their latest run with what they kept of it. */
  latestRun?: OperationText & { operationId: string; schema: TSchema };
  /** The body (of `schemas.body`) as the service takes it. */
  inputOf(body: Static<Body>): Input;
  /** The scan as the API answers it (of `schemas.scan`). */
  toDto(scan: Scan, view: ScanView): unknown;
}

/**
 * One kind of saved scan (discovery, system, web), described once: its table, its routes, how its
 * input is checked, how a scan becomes a run's spec, how a batch of results is applied and what
 * happens when a run ends. The generic service, repository and routes do the rest.
 */
export interface ScanKindDefinition<
  Scan extends SavedScan,
  Input,
  Write extends SavedScanWrite,
  Body extends TSchema = TSchema,
  Narrowing = never,
  Kind extends ScanKind = ScanKind,
> {
  kind: Kind;
  /** As messages name it: `discovery scan`. */
  noun: string;
  /** The audit target type and action prefix, and the schedule key prefix: `discovery-scan`. */
  auditType: string;
  /** The job a scan's schedule enqueues at each occurrence. */
  scheduledJob: ScanStartJob;
  table: ScanTable<Scan, Write>;
  http: ScanRoutesDescription<Scan, Input, Body>;
  /** The input checked (400, 404, 422) as it is written; `current` is the scan being changed. */
  check(ctx: ServiceContext, input: Input, current: Scan | null): Promise<Write>;
  /**
   * What a run of the scan is asked to do, its targets checked against today's allowed ones (422);
   * narrowed to some of them for a Verify run.
   */
  order(ctx: ServiceContext, scan: Scan, narrowed?: Narrowing): Promise<RunOrder>;
  /**
   * The results a batch from a node brings, as rows of the kind's results table. The items were
   * checked against the scanning contract when the batch arrived (a malformed batch is refused
   * whole); those its run did not allow are left out here.
   */
  acceptBatch(run: SavedScanRun, items: ScanResults[Kind][]): ResultRow[];
  /** The run ended (the scan's last run, and its completion, are set already). */
  runEnded(run: SavedScanRun, scan: Scan, at: Date, trx: Transaction<DB>): Promise<void>;
  /** Checked again when a node claims the run: the allowed targets may have changed since. */
  refusalAtStart(run: SavedScanRun, spec: unknown): Promise<string | null>;
}
