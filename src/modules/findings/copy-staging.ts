import { once } from 'node:events';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { LOCATION_COLUMNS } from './queries.js';
import type { ReportedState } from './rules.js';
import type { FindingLocationFields } from './types.js';

/** A finding as a report gives it, staged while the report streams in. */
export interface StagedFinding extends Omit<FindingLocationFields, 'locationKind'> {
  seq: number;
  assetKey: string;
  vulnerabilityKey: string;
  locationKey: string;
  locationKind: string;
  title: string;
  severity: string;
  evidence: string | null;
  toolFindingId: string | null;
  state: ReportedState | null;
  stateReason: string | null;
  /** Unconfirmed, or null: confirmed (every report's finding but a scan's undecided backport). */
  confidence: 'Unconfirmed' | null;
}

// The staged columns, in the order each COPY line gives them.
const COLUMNS = [
  'seq',
  'asset_key',
  'vulnerability_key',
  'location_key',
  ...LOCATION_COLUMNS,
  'title',
  'severity',
  'evidence',
  'tool_finding_id',
  'state',
  'state_reason',
  'confidence',
].join(', ');

// Lines are written to the COPY stream in chunks of about this many characters: one write a
// finding costs more in stream bookkeeping than the line itself.
const CHUNK_CHARS = 64 * 1024;

// How long an abort waits for the server to roll the COPY back before closing the connection.
const ABORT_WAIT_MS = 2_000;

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const SPECIAL = /[\\\t\n\r]/g;

/** A value as a field of COPY's text format: `\N` is null; backslash, tab and line ends escaped. */
export function copyField(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return value.replace(SPECIAL, (c) => ESCAPES[c] as string);
}

/** A staged finding as one line of COPY's text format, in COLUMNS' order. */
export function copyLine(f: StagedFinding): string {
  return `${[
    f.seq,
    f.assetKey,
    f.vulnerabilityKey,
    f.locationKey,
    f.locationKind,
    f.port,
    f.protocol,
    f.url,
    f.parameter,
    f.filePath,
    f.line,
    f.packageName,
    f.packageVersion,
    f.title,
    f.severity,
    f.evidence,
    f.toolFindingId,
    f.state,
    f.stateReason,
    f.confidence,
  ]
    .map(copyField)
    .join('\t')}\n`;
}

/**
 * One import's findings streamed into staging as the report is parsed: `COPY … FROM STDIN` on a
 * connection of its own into a temporary table, moved into import_findings in one statement when
 * the report ends. Batches of 200 as one JSON parameter were 500 statements a 100,000-finding
 * import and a JSON text per batch that V8 frees late (bench:import).
 *
 * The temporary table, not import_findings itself: a killed attempt's last rows can still commit
 * after the next attempt cleared the staging, and COPY has no `on conflict do nothing`. Nothing
 * reaches import_findings until finish(); an abandoned COPY (abort, a dropped connection) leaves
 * nothing behind, since the table lives and dies with its session.
 */
export class FindingCopyStaging {
  private chunk = '';
  private failure: unknown;
  private done = false;

  private constructor(
    private readonly client: pg.Client,
    private readonly stream: ReturnType<typeof copyFrom>,
    private readonly organizationId: string,
    private readonly importId: string,
  ) {
    // Kept to be thrown by the next write (an unhandled 'error' would end the process).
    stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  static async open(
    connection: pg.ClientConfig,
    organizationId: string,
    importId: string,
  ): Promise<FindingCopyStaging> {
    const client = new pg.Client(connection);
    // A connection the server drops fails the statement or the stream in progress; the event
    // itself must not end the process.
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query(
        `create temp table staged_findings as select ${COLUMNS} from import_findings with no data`,
      );
      const stream = client.query(copyFrom(`copy staged_findings (${COLUMNS}) from stdin`));
      return new FindingCopyStaging(client, stream, organizationId, importId);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  }

  /** Adds a finding; waits while the database is behind (the stream's buffer is full). */
  async add(finding: StagedFinding): Promise<void> {
    this.chunk += copyLine(finding);
    if (this.chunk.length >= CHUNK_CHARS) await this.write();
  }

  private async write(): Promise<void> {
    if (this.failure) throw this.failure;
    const text = this.chunk;
    this.chunk = '';
    if (text && !this.stream.write(text, 'utf8')) await once(this.stream, 'drain');
  }

  /** Ends the COPY and moves its rows into import_findings; the connection is closed. */
  async finish(): Promise<void> {
    try {
      await this.write();
      const ended = once(this.stream, 'finish');
      this.stream.end();
      await ended;
      await this.client.query(
        `insert into import_findings (organization_id, import_id, ${COLUMNS})
         select $1::uuid, $2::uuid, ${COLUMNS} from staged_findings
         on conflict (organization_id, import_id, seq) do nothing`,
        [this.organizationId, this.importId],
      );
    } finally {
      this.done = true;
      await this.client.end().catch(() => {});
    }
  }

  /** Abandons the COPY (the server rolls it back) and closes the connection; nothing was staged. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    if (!this.stream.destroyed) {
      // Closed once the server answered the CopyFail; a dropped connection never answers.
      const closed = once(this.stream, 'close').catch(() => {});
      this.stream.destroy(new Error('The import ended before its report was read.'));
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, ABORT_WAIT_MS).unref())]);
    }
    await this.client.end().catch(() => {});
  }
}
