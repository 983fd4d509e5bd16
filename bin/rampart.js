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
process.env.RAMPART_CLI_ENTRY = '1';
await import(entry.href);
