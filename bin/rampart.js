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
// V8 reads its heap flags only when Node starts (src/node-flags.ts says which and why): without
// them, Node starts again in this process with them. Where it cannot (Windows), it runs as is.
const { missingNodeFlags } = await import(new URL('../dist/node-flags.js', import.meta.url).href);
const missing = missingNodeFlags(process.execArgv, process.env.NODE_OPTIONS);
if (missing.length > 0 && typeof process.execve === 'function' && !process.env.RAMPART_NODE_FLAGS) {
  process.execve(
    process.execPath,
    [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
    {
      ...process.env,
      // Once only, whatever Node makes of the flags.
      RAMPART_NODE_FLAGS: missing.join(' '),
    },
  );
}
process.env.RAMPART_CLI_ENTRY = '1';
await import(entry.href);
