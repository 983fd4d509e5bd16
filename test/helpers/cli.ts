import type { Clock } from '../../src/lib/clock.js';
import { runCli } from '../../src/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `rampart argv…` in this process with `env` (and a clock), capturing what it prints. */
export async function runCliCapturing(
  env: Record<string, string>,
  argv: string[],
  clock?: Clock,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env,
    ...(clock ? { clock } : {}),
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
