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
        const m = /src\/modules\/([^/]+)\/(?:[\w-]+-)?repository\.js$/.exec(target);
        if (m && m[1] !== own && !file.endsWith('src/services.ts'))
          offences.push(`${path.relative(ROOT, file)} → ${m[1]}/repository`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('only repositories, their modules’ public query fragments (queries.ts), db/ and the composition root touch SQL', () => {
    const offences = files.filter((f) => {
      const rel = path.relative(ROOT, f);
      if (rel.startsWith('src/db/') || /(repository|queries)\.ts$/.test(rel)) return false;
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

  // The commands also run inside other programs (the tests run `serve` in their own process): only
  // the real entry point may end the process. A forced exit anywhere else ends the test worker too.
  it('ends the process only in src/main.ts', () => {
    const offences = files.filter(
      (f) =>
        path.relative(ROOT, f) !== 'src/main.ts' &&
        /\bprocess\.(exit|abort)\s*\(/.test(fs.readFileSync(f, 'utf8').replace(/\/\/.*$/gm, '')),
    );
    expect(offences.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  // The application's clock (src/lib/clock.ts, injected) is the one source of
  // time for every value the API returns or a rule compares; tests move it to any day.
  it('takes the time from the injected clock, never from the database or the system', () => {
    const systemTimeAllowed: Record<string, string> = {
      'src/lib/clock.ts': 'the system clock itself, injected by the composition root',
      'src/lib/uuidv7.ts': 'ids are ordered by the system clock; no rule compares them with a time',
      'src/modules/apikeys/service.ts': 'the expiry of its in-memory cache of keys, never returned',
      'src/db/lock.ts': 'when a process took the data directory, for the operator reading the lock file',
      'src/http/throttle-store.ts':
        'the in-memory throttle windows, as the Redis store keeps them by its own clock (expiry), like @fastify/rate-limit before it',
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

  // Services and repositories are the domain; HTTP presents them, never the reverse.
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

  // A routes file declares routes and calls; how things look on the wire
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

  it('the docs document every environment variable and every problem type, and no other', () => {
    const doc = (file: string) => fs.readFileSync(path.join(ROOT, 'docs', file), 'utf8');
    // The first cell of each row of the table under a heading, as `name`.
    const tableKeys = (text: string, heading: string) => {
      const section = text.split(heading)[1]?.split(/\n#{1,3} /)[0] ?? '';
      return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] as string);
    };
    const variables = tableKeys(doc('configuration.md'), "## The server's variables");
    expect(variables.sort()).toEqual(Object.keys(ENV_VARS).sort());
    const problems = tableKeys(doc('api.md'), '## Errors');
    expect(problems.sort()).toEqual(
      Object.values(Problems)
        .map((p) => p.slug)
        .sort(),
    );
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

// The readers both the importers and the intelligence feeds use live in
// src/parsing; each side stays free of the other, of the database and of the HTTP layer.
describe('parsing boundaries', () => {
  /** "src/intel/feeds/kev/kev.ts → src/parsing/json.ts" for each import from under `dir` into `banned`. */
  const importsInto = (dir: string, banned: readonly string[], allowed: readonly string[] = []) =>
    files
      .filter((file) => path.relative(ROOT, file).startsWith(`${dir}/`))
      .flatMap((file) =>
        importsOf(file).map((target) => [path.relative(ROOT, file), path.relative(ROOT, target)] as const),
      )
      .filter(([, target]) => banned.some((b) => target.startsWith(`${b}/`) || target === `${b}.js`))
      .filter(([, target]) => !allowed.some((a) => target.startsWith(`${a}/`)))
      .map(([file, target]) => `${file} → ${target}`);

  it('importers/ and intel/ import neither db/, modules/ nor http/', () => {
    const banned = ['src/db', 'src/modules', 'src/http', 'src/app'];
    expect([...importsInto('src/importers', banned), ...importsInto('src/intel', banned)]).toEqual([]);
  });

  it('intel/ does not import importers/', () => {
    expect(importsInto('src/intel', ['src/importers'])).toEqual([]);
  });

  it('importers/ use only the CVSS module of intel/ (the one CVSS calculator)', () => {
    expect(importsInto('src/importers', ['src/intel'], ['src/intel/cvss'])).toEqual([]);
  });

  it('parsing/ imports only itself and lib/', () => {
    // So neither importers/, intel/, modules/, db/ nor http/: both sides can use it.
    const others = files
      .filter((file) => path.relative(ROOT, file).startsWith('src/parsing/'))
      .flatMap((file) => importsOf(file).map((target) => path.relative(ROOT, target)))
      .filter((target) => !target.startsWith('src/parsing/') && !target.startsWith('src/lib/'));
    expect(others).toEqual([]);
  });

  it('one package URL reader: importers/ and intel/ read "pkg:" texts through src/parsing/purl.ts', () => {
    // A second reader shows as a regular expression or a prefix test on "pkg:".
    const purlReading = /\/\^pkg:|startsWith\('pkg:'\)/i;
    const offences = files
      .map((file) => path.relative(ROOT, file))
      .filter((rel) => rel.startsWith('src/importers/') || rel.startsWith('src/intel/'))
      .filter((rel) => purlReading.test(fs.readFileSync(path.join(ROOT, rel), 'utf8')));
    expect(offences).toEqual([]);
    expect(purlReading.test(fs.readFileSync(path.join(ROOT, 'src/parsing/purl.ts'), 'utf8'))).toBe(true);
  });
});

// No import cycles among src/ files. `import type` edges count too: a type-only
// cycle still ties two files together, and becomes a runtime one at the first value import.
/** The relative specifiers a source imports: imports, re-exports, side-effect and dynamic imports. */
function relativeSpecifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*(['"])(\.[^'"]+)\1/g)].map((m) => m[2]!);
}

/** Each file → the files of `files` it imports (a specifier's .js names the .ts beside it). */
function importGraph(sources: readonly string[]): Map<string, string[]> {
  const known = new Set(sources);
  const resolve = (from: string, specifier: string) => {
    const target = path.resolve(path.dirname(from), specifier);
    const ts = target.replace(/\.js$/, '.ts');
    return known.has(ts) ? ts : target;
  };
  return new Map(
    sources.map((file) => [
      file,
      relativeSpecifiers(fs.readFileSync(file, 'utf8'))
        .map((s) => resolve(file, s))
        .filter((target) => known.has(target)),
    ]),
  );
}

/** One cycle of `graph`, as the path that returns to its first node; undefined when there is none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const finished = new Set<string>();
  const trail: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const at = trail.indexOf(node);
    if (at >= 0) return [...trail.slice(at), node];
    if (finished.has(node)) return undefined;
    trail.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    trail.pop();
    finished.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('no import cycles', () => {
  it('the detector finds cycles of any length and passes graphs without one', () => {
    const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
    expect(findCycle(graph({ a: ['b'], b: ['a'] }))).toEqual(['a', 'b', 'a']);
    expect(findCycle(graph({ a: ['a'] }))).toEqual(['a', 'a']);
    expect(findCycle(graph({ x: ['a'], a: ['b'], b: ['c'], c: ['a'] }))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(graph({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toBeUndefined();
  });

  it('reads every kind of relative import, types included', () => {
    const text = [
      "import type { A } from './a.js';",
      'import {\n  B,\n  type C,\n} from "../double-quoted.js";',
      "import {\n  D,\n} from '../d.js';",
      "export { E } from './e.js';",
      "import './side-effect.js';",
      "const lazy = await import('./lazy.js');",
      "import Fastify from 'fastify';",
    ].join('\n');
    expect(relativeSpecifiers(text)).toEqual([
      './a.js',
      '../double-quoted.js',
      '../d.js',
      './e.js',
      './side-effect.js',
      './lazy.js',
    ]);
  });

  it('src/ has none', () => {
    const graph = importGraph(files);
    // The graph is real: the composition root's edges resolve to the .ts files they name.
    expect(graph.get(path.join(ROOT, 'src/app.ts'))).toContain(path.join(ROOT, 'src/services.ts'));
    const cycle = findCycle(graph);
    expect(cycle?.map((file) => path.relative(ROOT, file))).toBeUndefined();
  });
});

// One owner per table. A module's SQL names only its own tables; a listing that
// filters or sorts on another module's columns composes the joinable relation that module
// publishes in its queries.ts, and other reads go through the owner's service.
describe('table ownership', () => {
  const TABLE_OWNERS: Record<string, string> = {
    organizations: 'organizations',
    users: 'users',
    people: 'users',
    api_keys: 'apikeys',
    allowed_targets: 'allowedtargets',
    sessions: 'sessions',
    audit_events: 'audit',
    organization_settings: 'settings',
    mfa_factors: 'mfa',
    mfa_recovery_codes: 'mfa',
    mfa_challenges: 'mfa',
    assets: 'assets',
    asset_identifiers: 'assets',
    asset_services: 'assets',
    import_assets: 'assets',
    import_services: 'assets',
    asset_software: 'software',
    import_software: 'software',
    vulnerabilities: 'vulnerabilities',
    import_vulnerabilities: 'vulnerabilities',
    findings: 'findings',
    finding_events: 'findings',
    finding_sightings: 'findings',
    import_findings: 'findings',
    imports: 'imports',
    tickets: 'tickets',
    ticket_findings: 'tickets',
    ticket_comments: 'tickets',
    ticket_events: 'tickets',
    intel_cves: 'intel',
    intel_kev: 'intel',
    intel_epss: 'intel',
    intel_osv: 'intel',
    intel_loads: 'intel',
    intel_sync_lease: 'intel',
    intel_sync_sources: 'intel',
    scan_templates: 'scantemplates',
    discovery_scans: 'discoveryscans',
    discovery_run_hosts: 'discoveryscans',
    system_scans: 'systemscans',
    system_scan_runs: 'systemscans',
    system_run_hosts: 'systemscans',
    discovery_hosts: 'discoveryscans',
    web_scans: 'webscans',
    web_run_urls: 'webscans',
    web_runs: 'webscans',
    scan_groups: 'scangroups',
    scan_group_monitors: 'scangroups',
    scan_group_tracked: 'scangroups',
    // Not a module's: the record of applied SQL functions belongs to the database layer.
    sql_functions: 'db',
    // Not a module's: the durable job queue of src/jobs.
    jobs: 'jobs',
    scan_nodes: 'scannodes',
    scan_node_enrolments: 'scannodes',
    scan_runs: 'scanruns',
    scan_run_batches: 'scanruns',
    schedules: 'jobs',
    event_outbox: 'events',
    event_marks: 'events',
    notification_endpoints: 'notifications',
    notification_rules: 'notifications',
    notification_deliveries: 'notifications',
    notification_attempts: 'notifications',
    user_notification_preferences: 'emailnotifications',
    notification_email_queue: 'emailnotifications',
    finding_history: 'history',
    finding_history_builds: 'history',
    report_definitions: 'reports',
    report_runs: 'reports',
    report_chunks: 'reports',
    sso_providers: 'sso',
    sso_identities: 'sso',
    sso_attempts: 'sso',
    sso_settings: 'sso',
    idempotency_keys: 'idempotency',
  };

  /** The tables of the `DB` interface in src/db/schema.ts: a new table needs an owner here. */
  function schemaTables(): string[] {
    const schema = fs.readFileSync(path.join(ROOT, 'src/db/schema.ts'), 'utf8');
    const body = /export interface DB \{([^}]*)\}/.exec(schema)?.[1] ?? '';
    return [...body.matchAll(/^\s*(\w+)\s*:/gm)].map((m) => m[1]!);
  }

  const KYSELY_TABLE_ARGUMENT =
    /\b(?:selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|(?:inner|left|right|full|cross)Join(?:Lateral)?|table)\s*\(\s*(\[[^\]]*\]|(['"`])[^'"`]*\2)/g;
  // A quoted name of more than one word (`'import_findings'`) is a table name wherever it stands:
  // it catches a table passed to Kysely through a variable (`for (const t of [...]) deleteFrom(t)`).
  const QUOTED_TABLE = /(['"`])(\w+_\w+)(?:\s+as\s+\w+)?\1/g;
  const RAW_SQL_TABLE =
    /\b(?:from|join|into|update|truncate(?:\s+table)?|table)\s+(?:only\s+)?(?:public\.)?"?(\w+)"?/gi;

  /** Names of tables that a text's SQL mentions, in Kysely calls and in raw SQL (comments left out). */
  function tablesNamedIn(text: string, known: readonly string[]): Set<string> {
    const code = text
      .split('\n')
      .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
      .map((line) => line.replace(/(^|\s)\/\/.*$/, ''))
      .join('\n');
    const named = new Set<string>();
    for (const m of code.matchAll(KYSELY_TABLE_ARGUMENT))
      for (const arg of m[1]!.matchAll(/['"`]\s*(\w+)/g)) named.add(arg[1]!);
    for (const m of code.matchAll(RAW_SQL_TABLE)) named.add(m[1]!);
    for (const m of code.matchAll(QUOTED_TABLE)) named.add(m[2]!);
    return new Set([...named].filter((t) => known.includes(t)));
  }

  /** The module whose tables a file may name: its own module, intel for src/intel, jobs for src/jobs, none elsewhere. */
  function ownerOf(rel: string): string | undefined {
    if (rel.startsWith('src/intel/')) return 'intel';
    if (rel.startsWith('src/jobs/')) return 'jobs';
    return /^src\/modules\/([^/]+)\//.exec(rel)?.[1];
  }

  it('maps every table of the schema to a module (or the database layer) that exists', () => {
    expect(Object.keys(TABLE_OWNERS).sort()).toEqual(schemaTables().sort());
    for (const owner of new Set(Object.values(TABLE_OWNERS)))
      expect(
        fs.existsSync(
          path.join(ROOT, owner === 'db' || owner === 'jobs' ? `src/${owner}` : `src/modules/${owner}`),
        ),
        owner,
      ).toBe(true);
  });

  it('finds the tables that Kysely calls and raw SQL name, and none in comments', () => {
    const known = ['assets', 'findings', 'users', 'tickets', 'organization_settings', 'intel_kev'];
    const found = (text: string) => [...tablesNamedIn(text, known)].sort();
    expect(found(`db.selectFrom('findings as f').innerJoin('assets as a', (j) => j)`)).toEqual([
      'assets',
      'findings',
    ]);
    expect(found(`db.selectFrom(['users', 'tickets as t'])`)).toEqual(['tickets', 'users']);
    expect(found(`.leftJoin(\n  "users as u", 'u.id', 'x.user_id')`)).toEqual(['users']);
    expect(found(`db.insertInto('tickets')`)).toEqual(['tickets']);
    expect(found(`db.updateTable('findings').set(x)`)).toEqual(['findings']);
    expect(found(`db.deleteFrom('users')`)).toEqual(['users']);
    expect(found(`sql\`select * from intel_kev k where k.cve_id = any(\${ids})\``)).toEqual(['intel_kev']);
    expect(found('sql`select 1 from x\n  join\n    assets a on true`')).toEqual(['assets']);
    expect(found('sql`insert into organization_settings (organization_id) values (1)`')).toEqual([
      'organization_settings',
    ]);
    expect(found('sql`UPDATE "findings" SET state = 1`')).toEqual(['findings']);
    expect(found('sql`delete from tickets where id = 1`')).toEqual(['tickets']);
    expect(found('sql`truncate table users`')).toEqual(['users']);
    expect(
      found("for (const t of ['organization_settings'] as const) await db.deleteFrom(t).execute();"),
    ).toEqual(['organization_settings']);
    expect(found(`sql\`select \${sql.table('assets')}.id\``)).toEqual(['assets']);
    // Not SQL: comments, imports, words that are no table, table names as plain words.
    expect(
      found("// reads from findings\n/* join assets */\n * update users\nimport { x } from './users.js';"),
    ).toEqual([]);
    expect(found('const x = 1; // then into tickets')).toEqual([]);
    expect(found('sql`select 1 from finding_events`; const users = rows.map((r) => r.findings)')).toEqual([]);
  });

  it('no module names in SQL a table that another module owns', () => {
    const tables = Object.keys(TABLE_OWNERS);
    const offences: string[] = [];
    for (const file of files) {
      const rel = path.relative(ROOT, file);
      // Migrations create every table.
      if (rel.startsWith('src/db/')) continue;
      const own = ownerOf(rel);
      for (const table of tablesNamedIn(fs.readFileSync(file, 'utf8'), tables))
        if (TABLE_OWNERS[table] !== own) offences.push(`${rel} → ${table} (${TABLE_OWNERS[table]})`);
    }
    expect(offences.sort()).toEqual([]);
  });
});
