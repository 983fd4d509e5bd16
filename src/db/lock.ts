import fs from 'node:fs';
import path from 'node:path';
import { processRuns } from '../lib/process.js';

export interface LockHolder {
  pid: number;
  command: string;
  startedAt: string;
}

/** The embedded database is held by another live process. */
export class DatabaseLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
    /** What to do instead, when the command knows better than the general advice. */
    advice = 'The embedded database admits one process at a time. Either stop that process and run this ' +
      'command again, or do this through the running server (its API or web app), or set ' +
      'DATABASE_URL to a PostgreSQL server, which many processes can share.',
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another Rampart process ` +
        `(pid ${holder.pid}, "rampart ${holder.command}", since ${holder.startedAt}).\n${advice}`,
    );
    this.name = 'DatabaseLockedError';
  }
}

/**
 * Takes the data directory's lock file for this process. A lock left by a process that no
 * longer exists (killed, crashed) is taken over. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string, command: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockPath = path.join(dataDir, 'rampart.lock');
  const me: LockHolder = { pid: process.pid, command, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      return () => {
        try {
          const current = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockHolder;
          if (current.pid === process.pid) fs.unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: LockHolder | undefined;
    try {
      holder = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockHolder;
    } catch {
      holder = undefined; // Unreadable or half-written: treat as stale.
    }
    if (holder && holder.pid !== process.pid && processRuns(holder.pid)) {
      throw new DatabaseLockedError(dataDir, holder);
    }
    fs.rmSync(lockPath, { force: true });
  }
  throw new Error(`Could not take the lock ${lockPath}`);
}
