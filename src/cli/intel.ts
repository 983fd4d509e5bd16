import { stat } from 'node:fs/promises';
import { AppError } from '../http/problems/app-error.js';
import { Problems } from '../http/problems/types.js';
import type { FeedName } from '../intel/feeds/types.js';
import { toLoadDto } from '../modules/intel/routes.js';
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
    `${l.Source}: ${l.Feed}${l.DataDate ? ` (${l.DataDate})` : ''}`,
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

/** `rampart intel status`: records per feed and each feed's last load. */
export async function intelStatusCommand(cli: CliEnv, opts: { json?: boolean }): Promise<void> {
  const rt = await openRuntime(cli, 'intel status');
  try {
    const status = await rt.services.intel.feedStatus();
    const rows = FEEDS.map((feed) => {
      const last = status.lastLoads.find((l) => l.feed === feed);
      return {
        Feed: feed,
        Records: Number(status.counts?.[feed] ?? 0),
        LastLoad: last ? toLoadDto(last) : null,
      };
    });
    if (opts.json) {
      cli.out.stdout(`${JSON.stringify(rows)}\n`);
      return;
    }
    for (const r of rows)
      cli.out.stdout(
        `${r.Feed.padEnd(5)} ${String(r.Records).padStart(8)} records` +
          (r.LastLoad
            ? `; last load ${r.LastLoad.StartedAt} ${r.LastLoad.State}${r.LastLoad.Error ? `: ${r.LastLoad.Error}` : ''}`
            : '; never loaded') +
          '\n',
      );
  } finally {
    await rt.close();
  }
}
