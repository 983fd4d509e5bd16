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
const { missingNodeEnv, missingNodeFlags } = await import(
  new URL('../dist/node-flags.js', import.meta.url).href
);
const flags = missingNodeFlags(process.execArgv, process.env.NODE_OPTIONS);
const env = missingNodeEnv(process.env);
const restart = flags.length > 0 || Object.keys(env).length > 0;
if (restart && typeof process.execve === 'function' && !process.env.RAMPART_NODE_FLAGS) {
  process.execve(
    process.execPath,
    [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)],
    // Once only, whatever Node makes of the flags.
    { ...process.env, ...env, RAMPART_NODE_FLAGS: 'applied' },
  );
}
process.env.RAMPART_CLI_ENTRY = '1';
await import(entry.href);
