import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

export interface Serve {
  child: ChildProcess;
  stderr: () => string;
  /** The `serve --json` line's URL, or how the process ended before printing it. */
  started: Promise<{ ok: true; url: string } | { ok: false; code: number | null; stderr: string }>;
}

/**
 * `rampart serve --json` on the embedded database in `dataDir`, as `npm start` runs it (no
 * DATABASE_URL, no knowledge base), with `settings` added to its environment. `cleanup` receives
 * what kills it should the test not stop it.
 */
export function serveEmbedded(
  dataDir: string,
  cleanup: (fn: () => void) => void,
  settings: Record<string, string> = {},
): Serve {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RAMPART_DATA_DIR: dataDir,
    RAMPART_PORT: '0',
    RAMPART_LOG_LEVEL: 'silent',
    RAMPART_INTEL_KB: 'off',
    RAMPART_IMPORT_DIR: path.join(dataDir, '..', 'imports'),
    ...settings,
  };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup(() => {
    child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const started = new Promise<Awaited<Serve['started']>>((resolve) => {
    child.stdout?.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ ok: true, url: (JSON.parse(line) as { Url: string }).Url });
    });
    child.on('exit', (code) => resolve({ ok: false, code, stderr }));
  });
  return { child, stderr: () => stderr, started };
}

/** SIGTERM, then the exit code (the code it already ended with, if it did). */
export async function stopServe(s: Serve): Promise<number | null> {
  if (s.child.exitCode !== null) return s.child.exitCode;
  const exited = once(s.child, 'exit');
  s.child.kill('SIGTERM');
  return (await exited)[0] as number | null;
}
