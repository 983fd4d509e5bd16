import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../../src/config.js';
import { requireAccessDeclarations } from '../../src/http/channels.js';
import { Problems } from '../../src/problems/catalogue.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|mjs)$/.test(e.name) ? [p] : [];
  });
}

const files = sourceFiles(path.join(ROOT, 'src'));
const importsOf = (file: string) =>
  [...fs.readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) =>
    path.resolve(path.dirname(file), m[1]!),
  );

describe('architecture rules', () => {
  it('no module reaches into another module’s repository', () => {
    const offences: string[] = [];
    for (const file of files) {
      const own = /src\/modules\/([^/]+)\//.exec(file)?.[1];
      for (const target of importsOf(file)) {
        const m = /src\/modules\/([^/]+)\/repository\.js$/.exec(target);
        if (m && m[1] !== own && !file.endsWith('src/app.ts'))
          offences.push(`${path.relative(ROOT, file)} → ${m[1]}/repository`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('only repositories, db/ and the composition root touch SQL', () => {
    const offences = files.filter((f) => {
      const rel = path.relative(ROOT, f);
      if (rel.startsWith('src/db/') || rel.endsWith('repository.ts')) return false;
      return (
        /from 'kysely'/.test(fs.readFileSync(f, 'utf8')) &&
        !/import type/.test(fs.readFileSync(f, 'utf8').match(/.*from 'kysely'.*/)?.[0] ?? '')
      );
    });
    expect(offences.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it('services know nothing of Fastify', () => {
    const offences = files.filter(
      (f) => f.endsWith('service.ts') && /from 'fastify'/.test(fs.readFileSync(f, 'utf8')),
    );
    expect(offences).toEqual([]);
  });

  // Issue 12, item 1: the application's clock (src/lib/clock.ts, injected) is the one source of
  // time for every value the API returns or a rule compares; tests move it to any day.
  it('takes the time from the injected clock, never from the database or the system', () => {
    const systemTimeAllowed: Record<string, string> = {
      'src/lib/clock.ts': 'the system clock itself, injected by the composition root',
      'src/lib/uuidv7.ts': 'ids are ordered by the system clock; no rule compares them with a time',
      'src/modules/apikeys/service.ts': 'the expiry of its in-memory cache of keys, never returned',
      'src/db/lock.ts': 'when a process took the data directory, for the operator reading the lock file',
    };
    // Migrations before 0011 are history (0011 dropped their column defaults).
    const history = /^src\/db\/migrations\/(000\d|0010)_/;
    const sqlTime =
      /(?<![.\w])(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday)\s*\(\s*\)|\b(current_timestamp|current_date|current_time|localtimestamp|localtime)\b/i;
    const systemTime = /\bDate\.now\s*\(\s*\)|\bnew Date\s*\(\s*\)/;
    const offences: string[] = [];
    for (const file of files) {
      const rel = path.relative(ROOT, file);
      if (history.test(rel)) continue;
      for (const [i, line] of fs.readFileSync(file, 'utf8').split('\n').entries()) {
        if (sqlTime.test(line)) offences.push(`${rel}:${i + 1} database time: ${line.trim()}`);
        if (systemTime.test(line) && !(rel in systemTimeAllowed))
          offences.push(`${rel}:${i + 1} system time: ${line.trim()}`);
      }
    }
    expect(offences).toEqual([]);
    for (const rel of Object.keys(systemTimeAllowed))
      expect(fs.existsSync(path.join(ROOT, rel)), rel).toBe(true);
  });

  // Issue 13, item 4: services and repositories are the domain; HTTP presents them, never the reverse.
  it('services and repositories import nothing under src/http/', () => {
    const offences: string[] = [];
    for (const file of files.filter((f) => /\/(service|repository)\.ts$/.test(f))) {
      for (const target of importsOf(file)) {
        if (target.startsWith(path.join(ROOT, 'src/http/')))
          offences.push(`${path.relative(ROOT, file)} → ${path.relative(ROOT, target)}`);
      }
    }
    expect(offences).toEqual([]);
  });

  // Issue 13, item 4: a routes file declares routes and calls; how things look on the wire
  // (to…Dto mappers, CSV columns) is in the module's presenters.ts.
  it('routes files keep no presenters', () => {
    const offences: string[] = [];
    for (const file of files.filter((f) => f.endsWith('/routes.ts'))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^(?:export )?(?:const|function) (to[A-Z]\w*|[A-Z_]+_CSV)\b/gm))
        offences.push(`${path.relative(ROOT, file)}: ${m[1]}`);
      if (/\bCsvColumn\b/.test(text)) offences.push(`${path.relative(ROOT, file)}: CSV columns`);
    }
    expect(offences).toEqual([]);
  });

  it('the README documents every environment variable and every problem type', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const name of Object.keys(ENV_VARS)) expect(readme, name).toContain(`\`${name}\``);
    for (const p of Object.values(Problems)) expect(readme, p.slug).toContain(`\`${p.slug}\``);
  });
});

describe('route declarations', () => {
  it('refuses at start an API route that declares no access', async () => {
    const app = Fastify({ logger: false });
    requireAccessDeclarations(app);
    app.get('/status', { config: {} }, async () => 'fine outside /api');
    expect(() => app.get('/api/latest/things', async () => [])).toThrow(/declares no access/);
    expect(() =>
      app.get('/api/latest/open', { config: { access: { public: true } } }, async () => []),
    ).not.toThrow();
    await app.close();
  });
});
