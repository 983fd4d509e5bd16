import { type ChildProcess, spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import type { Clock } from '../../src/lib/clock.js';
import { runCli } from '../../src/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `rampart argv…` in this process with `env` (a clock, what stdin holds), capturing what it prints. */
export async function runCliCapturing(
  env: Record<string, string>,
  argv: string[],
  clock?: Clock,
  stdin?: string,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    // Never the official sources from a test (a `serve` here would sync them); a test may say on.
    env: { RAMPART_INTEL_SYNC: 'off', ...env },
    ...(clock ? { clock } : {}),
    ...(stdin !== undefined ? { stdin: Readable.from([Buffer.from(stdin)]) } : {}),
    out: {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
    },
  });
  return { code, stdout, stderr };
}

/** `rampart import FILE` in a child process, resolved once it says the import has begun. */
export async function startImportProcess(env: Record<string, string>, file: string): Promise<ChildProcess> {
  // The child sees only this test's database: never a DATABASE_URL of the surrounding run.
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'import', file], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      if (stderr.includes('Importing')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`import ended before it began (${code}): ${stderr}`)));
  });
  return child;
}
