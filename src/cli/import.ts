import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { handlerOf } from '../jobs/catalogue.js';
import { JobRunner } from '../jobs/runner.js';
import { toImportDto } from '../modules/imports/presenters.js';
import { importDirectory, spoolReport } from '../modules/imports/upload.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { type CliEnv, openRuntime } from './runtime.js';

export interface ImportOptions {
  format?: string;
  scope?: string;
  server?: string;
  org?: string;
  json?: boolean;
}

type ImportDto = ReturnType<typeof toImportDto>;

/**
 * The import completed but stored little or nothing of what it read (its Attention): exit code 5,
 * so that a pipeline notices a report that silently found nothing.
 */
export class ImportNeedsAttentionError extends Error {
  constructor(detail: string) {
    super(`The import needs attention: ${detail}`);
    this.name = 'ImportNeedsAttentionError';
  }
}

function summary(i: ImportDto): string {
  const c = i.Counts;
  if (i.State === 'Failed') return `Import ${i.Id} failed: ${i.Error}`;
  const lines = [
    ...(i.Attention ? [`NEEDS ATTENTION: ${i.Attention.Detail}`] : []),
    `Imported ${i.FileName ?? 'the report'} as ${i.Format} in ${i.DurationMs ?? 0} ms (import ${i.Id}):`,
    `  findings: ${c.New ?? 0} new, ${c.Reopened ?? 0} reopened, ${c.Fixed ?? 0} fixed, ${c.Unchanged ?? 0} unchanged` +
      (c.DuplicatesMerged ? `, ${c.DuplicatesMerged} duplicates merged` : ''),
    `  assets: ${c.AssetsCreated ?? 0} created, ${c.AssetsUpdated ?? 0} updated; services: ${c.Services ?? 0}; software: ${c.Software ?? 0}`,
  ];
  if (i.Warnings.length > 0)
    lines.push(`  warnings (${i.Warnings.length}):`, ...i.Warnings.map((w) => `    - ${w}`));
  return lines.join('\n');
}

function finish(cli: CliEnv, opts: ImportOptions, result: ImportDto): void {
  cli.out.stdout(opts.json ? `${JSON.stringify(result)}\n` : `${summary(result)}\n`);
  if (result.State === 'Failed')
    throw AppError.of(Problems.ValidationFailed, result.Error ?? 'The import failed.');
  if (result.Attention) throw new ImportNeedsAttentionError(result.Attention.Detail);
}

async function checkFile(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw AppError.of(Problems.ValidationFailed, `No such file: ${file}`);
}

/**
 * `rampart import FILE`: straight into the database, or through a running server's API with the
 * API key in RAMPART_ACCESS_KEY / RAMPART_SECRET_KEY (for CI pipelines). Waits for the import to
 * end; exit code 1 when it failed, 5 when it completed but needs attention.
 */
export async function importCommand(cli: CliEnv, file: string, opts: ImportOptions): Promise<void> {
  await checkFile(file);
  if (opts.server) return finish(cli, opts, await viaServer(cli, file, opts));
  const rt = await openRuntime(cli, 'import');
  // The import runs as a job: this process runs the import worker until its import has ended. With
  // the embedded database it first takes up an import a killed process left (only one process uses
  // it); on PostgreSQL such an import waits for its lease to run out, then any worker takes it.
  const runner = new JobRunner(rt.services.jobs, rt.services.scheduler, {
    worker: { concurrency: 1, onError: () => {} },
  }).register('import', handlerOf('import', rt.services));
  try {
    await runner.start({ expireLeases: rt.database.kind === 'embedded', schedules: false });
    const org = opts.org ? await rt.services.organizations.get(opts.org) : rt.firstOrganization;
    const ctx = { organizationId: org.id, actor: { type: 'cli' as const, id: null } };
    const report = await spoolReport(
      createReadStream(file),
      importDirectory(rt.config.importDir),
      rt.config.importMaxBytes,
    );
    let submitted: Awaited<ReturnType<typeof rt.services.imports.submit>>;
    try {
      submitted = await rt.services.imports.submit(ctx, {
        report,
        fileName: basename(file),
        format: opts.format,
        scopeName: opts.scope,
      });
    } catch (error) {
      await report.remove();
      throw error;
    }
    // Said on stderr so that people (and the kill test) see the import has begun.
    if (!opts.json)
      cli.out.stderr(`Importing ${basename(file)} as ${submitted.format} (import ${submitted.id})…\n`);
    await rt.services.imports.settled(submitted.id);
    finish(cli, opts, toImportDto(await rt.services.imports.get(ctx, submitted.id)));
  } finally {
    await runner.stop();
    await rt.close();
  }
}

async function viaServer(cli: CliEnv, file: string, opts: ImportOptions): Promise<ImportDto> {
  const accessKey = cli.env.RAMPART_ACCESS_KEY;
  const secretKey = cli.env.RAMPART_SECRET_KEY;
  if (!accessKey || !secretKey)
    throw AppError.of(
      Problems.ValidationFailed,
      '--server needs an API key: set RAMPART_ACCESS_KEY and RAMPART_SECRET_KEY.',
    );
  const base = (opts.server ?? '').replace(/\/+$/, '');
  const headers = { ApiAccessKey: accessKey, ApiSecretKey: secretKey };
  const query = new URLSearchParams({ FileName: basename(file) });
  if (opts.format) query.set('Format', opts.format);
  if (opts.scope) query.set('ScopeName', opts.scope);
  const submitted = await reach(base, `${base}/api/latest/imports?${query}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/octet-stream' },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  let body = (await submitted.json().catch(() => ({}))) as ImportDto & { detail?: string };
  if (submitted.status !== 202)
    throw AppError.of(
      Problems.ValidationFailed,
      `The server refused the report (${submitted.status}): ${body.detail ?? ''}`,
    );
  // Follow the import until it ends; clients are asked to pause between calls.
  while (body.State === 'Queued' || body.State === 'Running') {
    await sleep(1000);
    const res = await reach(base, `${base}/api/latest/imports/${body.Id}`, { headers });
    if (res.status === 429) continue;
    body = (await res.json()) as ImportDto;
  }
  return body;
}

/** Network errors as Node names them (the `code` of fetch's cause), said for people. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (is Rampart running there, on that port?)',
  ENOTFOUND: 'no such host (check the name in --server)',
  EAI_AGAIN: 'the name could not be resolved right now (DNS)',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another name',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_INVALID_URL: 'that is not a URL (give it as http://host:port)',
};

/**
 * fetch, with a failure to reach the server said as which server and why: fetch itself says
 * only "fetch failed" and keeps the reason in its cause.
 */
async function reach(server: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw AppError.of(
      Problems.ValidationFailed,
      `Could not reach the server ${server}: ${whyUnreachable(error)}.`,
    );
  }
}

function whyUnreachable(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  // A name with several addresses fails with one error per address.
  const first = (cause instanceof AggregateError ? cause.errors[0] : cause) as
    | { code?: string; message?: string }
    | undefined;
  const code = first?.code;
  if (code) return `${NETWORK_ERRORS[code] ?? first?.message ?? code} [${code}]`;
  return first?.message ?? String(error);
}
