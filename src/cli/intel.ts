import { stat } from 'node:fs/promises';
import { officialSourcesOf, syncUrlsOf } from '../config.js';
import type { FeedName } from '../intel/feeds/types.js';
import { sourceList } from '../intel/sync/sources.js';
import { ageInDays, REFRESH_HINT, STALE_AFTER_DAYS } from '../modules/intel/freshness.js';
import { syncSourceLines, toFeedItems, toLoadDto, toSyncSources } from '../modules/intel/presenters.js';
import { IntelSync } from '../modules/intel/sync.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { type CliEnv, openRuntime } from './runtime.js';

export interface IntelLoadOptions {
  feed?: string;
  json?: boolean;
}

const FEEDS: readonly FeedName[] = ['nvd', 'cve5', 'kev', 'epss', 'osv'];

type LoadDto = ReturnType<typeof toLoadDto>;

function line(l: LoadDto): string {
  if (l.State === 'Failed') return `${l.Source}: ${l.Feed} load failed: ${l.Error}`;
  const parts = [
    `${l.Source}: ${l.Feed}${l.DataDateAsGiven ? ` (${l.DataDateAsGiven})` : ''}`,
    `${l.Added} added, ${l.Updated} updated, ${l.Unchanged} unchanged`,
  ];
  if (l.Skipped) parts.push(`${l.Skipped} skipped`);
  const warnings = l.Warnings.length ? `\n${l.Warnings.map((w) => `    - ${w}`).join('\n')}` : '';
  return `${parts.join(': ')}${warnings}`;
}

/**
 * `rampart intel load PATH…`: loads feed files (or every feed file of a folder) straight into the
 * database, one after the other; exit code 1 when any failed.
 */
export async function intelLoadCommand(cli: CliEnv, paths: string[], opts: IntelLoadOptions): Promise<void> {
  if (opts.feed && !FEEDS.includes(opts.feed as FeedName))
    throw AppError.of(
      Problems.ValidationFailed,
      `Unknown feed '${opts.feed}'; use one of ${FEEDS.join(', ')}.`,
    );
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw AppError.of(Problems.ValidationFailed, `No such file or folder: ${path}`);
  }
  const rt = await openRuntime(cli, 'intel load');
  try {
    await rt.services.intel.failInterrupted(rt.database.kind === 'embedded' ? 0 : 24 * 3600);
    const loads: LoadDto[] = [];
    for (const path of paths) {
      const info = await stat(path);
      let loaded = [];
      if (info.isDirectory()) {
        const folder = await rt.services.intel.loadFolder(path);
        loaded = folder.loads;
        for (const file of folder.skipped) cli.out.stderr(`Skipped ${file}: not a feed file Rampart reads\n`);
      } else {
        loaded = [await rt.services.intel.loadFile(path, { feed: opts.feed as FeedName | undefined })];
      }
      for (const load of loaded) {
        const dto = toLoadDto(load);
        loads.push(dto);
        if (!opts.json) cli.out.stdout(`${line(dto)}\n`);
      }
    }
    if (opts.json) cli.out.stdout(`${JSON.stringify(loads)}\n`);
    const failed = loads.filter((l) => l.State === 'Failed');
    if (failed.length > 0)
      throw AppError.of(Problems.ValidationFailed, `${failed.length} of ${loads.length} loads failed.`);
  } finally {
    await rt.close();
  }
}

/**
 * `rampart intel status`: records per feed, how current each feed's data is, and each feed's last
 * load; each official source's last sync, progress and last error (text only: --json keeps the
 * feed rows it always printed; GET /intel/feeds has the sources); warns (with what to do) when a feed is older than STALE_AFTER_DAYS at the clock of the
 * application, so that a knowledge base shipped long ago is not taken for today's.
 */
export async function intelStatusCommand(cli: CliEnv, opts: { json?: boolean }): Promise<void> {
  const rt = await openRuntime(cli, 'intel status', undefined, { existing: true });
  try {
    const status = await rt.services.intel.feedStatus();
    const rows = toFeedItems(status).map((f) => ({
      Feed: f.Feed,
      Records: f.Records,
      DataDate: f.DataDate,
      Stale: f.Stale,
      LastLoad: f.LastLoad,
    }));
    if (opts.json) {
      cli.out.stdout(`${JSON.stringify(rows)}\n`);
      return;
    }
    const dated = (r: (typeof rows)[number]) =>
      r.DataDate
        ? `; data of ${r.DataDate.slice(0, 10)}${r.Stale ? ` (${ageInDays(r.DataDate, status.now)} days old)` : ''}`
        : '';
    for (const r of rows)
      cli.out.stdout(
        `${r.Feed.padEnd(5)} ${String(r.Records).padStart(8)} records${dated(r)}` +
          (r.LastLoad
            ? `; last load ${r.LastLoad.StartedAt} ${r.LastLoad.State}${r.LastLoad.Error ? `: ${r.LastLoad.Error}` : ''}`
            : '; never loaded') +
          '\n',
      );
    const configured = sourceList(officialSourcesOf(rt.config));
    cli.out.stdout(
      configured.length > 0
        ? `\nSync from the official sources: on, every ${rt.config.intelSyncHours} h\n`
        : '\nSync from the official sources: off (RAMPART_INTEL_SYNC=off)\n',
    );
    for (const l of syncSourceLines(toSyncSources(status.sources, configured))) cli.out.stdout(`  ${l}\n`);
    const stale = rows.filter((r) => r.Stale);
    if (stale.length > 0)
      cli.out.stdout(
        `\nWarning: the data of ${stale.map((r) => r.Feed).join(', ')} is more than ${STALE_AFTER_DAYS} days old ` +
          `(today is ${status.now.toISOString().slice(0, 10)}): risk scores and KEV due dates miss what was published since. ` +
          `${REFRESH_HINT}\n`,
      );
  } finally {
    await rt.close();
  }
}

/**
 * `rampart intel sync [--force]`: one sync now, as the `intel-sync` schedule runs it (the same
 * sources, under the same knowledge-base lock): sources synced in the last half period are passed
 * over unless --force, and NVD resumes at the page it committed last. Exit code 1 when a source
 * or URL failed.
 */
export async function intelSyncCommand(
  cli: CliEnv,
  opts: { json?: boolean; force?: boolean },
): Promise<void> {
  const rt = await openRuntime(cli, 'intel sync');
  try {
    const sources = officialSourcesOf(rt.config);
    const urls = syncUrlsOf(rt.config);
    if (!sources && urls.length === 0)
      throw AppError.of(
        Problems.ValidationFailed,
        'Nothing to sync: RAMPART_INTEL_SYNC is off and RAMPART_INTEL_SYNC_URLS is not set.',
      );
    await rt.services.intel.failInterrupted(rt.database.kind === 'embedded' ? 0 : 24 * 3600);
    const sync = new IntelSync(
      rt.services.intel,
      {
        urls,
        sources,
        clock: rt.services.clock,
        ...(opts.force ? {} : { freshForMs: (rt.config.intelSyncHours * 3_600_000) / 2 }),
      },
      (message, details) => {
        if (!opts.json) cli.out.stderr(`${message}: ${JSON.stringify(details ?? {})}\n`);
      },
    );
    const outcome = await rt.database.exclusive('knowledge-base', () => sync.run());
    const states = toSyncSources(await rt.services.intel.syncSources(), sourceList(sources));
    if (opts.json)
      cli.out.stdout(
        `${JSON.stringify({ Sources: states, Errors: outcome.errors.map((e) => ({ Url: e.url, Error: e.error })) })}\n`,
      );
    else for (const l of syncSourceLines(states)) cli.out.stdout(`${l}\n`);
    if (outcome.errors.length > 0)
      throw AppError.of(
        Problems.ValidationFailed,
        `${outcome.errors.length} of the sync's sources failed: ${outcome.errors.map((e) => e.error).join('; ')}`,
      );
  } finally {
    await rt.close();
  }
}
