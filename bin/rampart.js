#!/usr/bin/env node
// The `rampart` command. Runs the compiled CLI; build it first with `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    'rampart is not built yet: run `npm run build` (or `npm start`) in the checkout first.\n',
  );
  process.exit(1);
}
// V8 reads its heap flags, and glibc its allocator settings, only when the process starts
// (src/node-flags.ts says which and why): without them, Node starts again in this process with
// them. Where it cannot (Windows), it runs as is.
const { restartWithNodeSettings } = await import(new URL('../dist/node-flags.js', import.meta.url).href);
restartWithNodeSettings({
  execPath: process.execPath,
  execArgv: process.execArgv,
  argv: process.argv,
  env: process.env,
  execve: typeof process.execve === 'function' ? process.execve.bind(process) : undefined,
});
process.env.RAMPART_CLI_ENTRY = '1';
await import(entry.href);
