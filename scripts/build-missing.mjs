// `npm start` runs this first: builds the server and the web app when their output is missing or
// older than their sources, so a fresh clone (or a pull) starts with one command.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function newest(dir) {
  let latest = 0;
  if (!fs.existsSync(dir)) return latest;
  if (!fs.statSync(dir).isDirectory()) return fs.statSync(dir).mtimeMs;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return latest;
}

function outdated(output, sources) {
  if (!fs.existsSync(output)) return true;
  const built = fs.statSync(output).mtimeMs;
  return sources.some((s) => newest(s) > built);
}

function run(script) {
  console.log(`rampart: npm run ${script}`);
  const result = spawnSync('npm', ['run', '--silent', script], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// `node scripts/build-missing.mjs web` builds only the web app (the browser tests need no server build).
const only = process.argv[2];
const serverSources = [path.join(root, 'src'), path.join(root, 'package.json')];
if (only !== 'web' && outdated(path.join(root, 'dist/main.js'), serverSources)) run('build:server');
// The web app bundles the chart options of src/charts too.
const webSources = [path.join(root, 'web'), path.join(root, 'src/charts')];
if (only !== 'server' && outdated(path.join(root, 'dist/web/index.html'), webSources)) run('build:web');
