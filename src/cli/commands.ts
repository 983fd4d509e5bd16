import { DatabaseLockedError } from '../db/lock.js';
import { ROLES, type Role } from '../db/schema.js';
import { loadDemo, removeDemo } from '../demo/seed.js';
import type { ApiKey } from '../modules/apikeys/service.js';
import type { ServiceContext } from '../modules/context.js';
import type { User } from '../modules/users/service.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { type CliEnv, openRuntime, type Runtime, type RuntimeOptions } from './runtime.js';

const CLI_ACTOR: ServiceContext['actor'] = { type: 'cli', id: null };
// Commands that only read: they never create a database where there is none.
const READ_ONLY: RuntimeOptions = { existing: true };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface JsonFlag {
  json?: boolean;
}

function print(cli: CliEnv, opts: JsonFlag, json: unknown, text: string): void {
  cli.out.stdout(opts.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
}

async function withRuntime<T>(
  cli: CliEnv,
  command: string,
  fn: (rt: Runtime) => Promise<T>,
  options: RuntimeOptions = {},
): Promise<T> {
  const rt = await openRuntime(cli, command, undefined, options);
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

function parseRole(text: string): Role {
  const role = ROLES.find((r) => r.toLowerCase() === text.toLowerCase());
  if (!role)
    throw AppError.of(Problems.ValidationFailed, `Unknown role '${text}'; use one of ${ROLES.join(', ')}.`);
  return role;
}

/** The memberships of the person with this email, oldest first (at least one). */
async function membershipsByEmail(rt: Runtime, email: string) {
  const found = await rt.services.users.findForSignIn(email);
  if (!found || found.memberships.length === 0)
    throw AppError.of(Problems.NotFound, `No user with email ${email}. Create one with: rampart user create`);
  return found.memberships as [User, ...User[]];
}

async function userByEmail(rt: Runtime, email: string) {
  return (await membershipsByEmail(rt, email))[0];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function keyJson(k: ApiKey) {
  return {
    Id: k.id,
    Name: k.name,
    AccessKey: k.accessKey,
    CreatedAt: iso(k.createdAt),
    LastUsedAt: iso(k.lastUsedAt),
    ExpiresAt: iso(k.expiresAt),
    RevokedAt: iso(k.revokedAt),
    Status: k.status,
  };
}

export async function migrateCommand(cli: CliEnv, opts: JsonFlag): Promise<void> {
  await withRuntime(cli, 'migrate', async (rt) => {
    const applied = rt.appliedMigrations;
    print(
      cli,
      opts,
      { Applied: applied, Database: rt.database.kind, OrganizationCreated: rt.createdOrganization },
      applied.length
        ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
        : 'The database is up to date.',
    );
  });
}

function checkOrgId(id: string): void {
  if (!UUID.test(id))
    throw AppError.of(Problems.ValidationFailed, `The organisation id must be a UUID, not '${id}'.`);
}

const orgJson = (o: { id: string; name: string; active: boolean; members: number; createdAt: Date }) => ({
  Id: o.id,
  Name: o.name,
  Active: o.active,
  Members: o.members,
  CreatedAt: o.createdAt.toISOString(),
});

/** `rampart org create --name N [--admin EMAIL]`: the operator's way to add an organisation. */
export async function orgCreateCommand(
  cli: CliEnv,
  opts: JsonFlag & { name: string; admin?: string },
): Promise<void> {
  await withRuntime(cli, 'org create', async (rt) => {
    const created = await rt.services.installation.create(
      { kind: 'cli' },
      { name: opts.name, ...(opts.admin !== undefined ? { adminEmail: opts.admin } : {}) },
    );
    const org = created.organization;
    const adminLine = !created.admin
      ? `\nIt has no Admin yet: add one with rampart user create --org ${org.id} --role Admin --email ...`
      : created.password
        ? `\nIts Admin ${created.admin.email} is new; their password (shown only now): ${created.password}`
        : `\nIts Admin ${created.admin.email} signs in with their own password and switches to it.`;
    print(
      cli,
      opts,
      {
        Id: org.id,
        Name: org.name,
        Admin: created.admin ? { Id: created.admin.id, Email: created.admin.email } : null,
        AdminPassword: created.password,
      },
      `Created organisation "${org.name}" with id ${org.id}${adminLine}`,
    );
  });
}

/** `rampart org rename ID --name N`. */
export async function orgRenameCommand(
  cli: CliEnv,
  opts: JsonFlag & { id: string; name: string },
): Promise<void> {
  checkOrgId(opts.id);
  await withRuntime(cli, 'org rename', async (rt) => {
    const org = await rt.services.installation.update({ kind: 'cli' }, opts.id, { name: opts.name });
    print(cli, opts, orgJson(org), `Organisation ${org.id} is now "${org.name}".`);
  });
}

/** `rampart org deactivate|reactivate ID`. */
export async function orgSetActiveCommand(
  cli: CliEnv,
  opts: JsonFlag & { id: string; active: boolean },
): Promise<void> {
  checkOrgId(opts.id);
  await withRuntime(cli, opts.active ? 'org reactivate' : 'org deactivate', async (rt) => {
    const org = await rt.services.installation.update({ kind: 'cli' }, opts.id, { active: opts.active });
    print(
      cli,
      opts,
      orgJson(org),
      org.active
        ? `Organisation "${org.name}" is active: its people can sign in to it again.`
        : `Organisation "${org.name}" is deactivated: its sessions ended, its API keys stopped, its schedules wait. Its data is kept.`,
    );
  });
}

export async function orgListCommand(cli: CliEnv, opts: JsonFlag): Promise<void> {
  await withRuntime(
    cli,
    'org list',
    async (rt) => {
      const orgs = await rt.services.installation.list();
      print(
        cli,
        opts,
        orgs.map(orgJson),
        orgs
          .map((o) => `${o.id}  ${o.name}${o.active ? '' : '  (deactivated)'}  ${o.members} member(s)`)
          .join('\n'),
      );
    },
    READ_ONLY,
  );
}

/** `rampart user installation-admin EMAIL [--revoke]`: who may create and deactivate organisations. */
export async function userInstallationAdminCommand(
  cli: CliEnv,
  opts: JsonFlag & { email: string; revoke?: boolean },
): Promise<void> {
  await withRuntime(
    cli,
    'user installation-admin',
    async (rt) => {
      const person = await rt.services.users.setInstallationAdmin(opts.email, !opts.revoke);
      print(
        cli,
        opts,
        { Email: person.email, InstallationAdmin: person.installationAdmin },
        person.installationAdmin
          ? `${person.email} is an installation Admin: they create, rename and deactivate organisations (Organisations page).`
          : `${person.email} is no longer an installation Admin.`,
      );
    },
    { existing: true },
  );
}

export async function userCreateCommand(
  cli: CliEnv,
  opts: JsonFlag & { email: string; role: string; password?: string; name?: string; org?: string },
): Promise<void> {
  const role = parseRole(opts.role);
  if (opts.org !== undefined && !UUID.test(opts.org)) {
    throw AppError.of(
      Problems.ValidationFailed,
      `--org must be an organisation id (a UUID), not '${opts.org}'.`,
    );
  }
  await withRuntime(cli, 'user create', async (rt) => {
    const org = opts.org ? await rt.services.organizations.get(opts.org) : rt.firstOrganization;
    const user = await rt.services.users.create(
      { organizationId: org.id, actor: CLI_ACTOR },
      { email: opts.email, name: opts.name, role, password: opts.password },
    );
    print(
      cli,
      opts,
      { Id: user.id, Email: user.email, Name: user.name, Role: user.role, OrganizationId: org.id },
      `Created ${user.role} ${user.email} (id ${user.id}) in "${org.name}".` +
        (opts.password ? '' : '\nThe user has no password yet, so cannot sign in; API keys work.'),
    );
  });
}

/** At most this much is read from stdin for a password: a password is at most 256 characters. */
const MAX_STDIN_BYTES = 4096;

/** The password given on stdin: its first line, without the line break. */
async function readPasswordFromStdin(cli: CliEnv): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of cli.stdin ?? []) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    chunks.push(buffer);
    bytes += buffer.length;
    if (bytes > MAX_STDIN_BYTES) break;
  }
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
  if (password === '')
    throw AppError.of(
      Problems.ValidationFailed,
      'The password read from stdin is empty: give it on the first line, e.g. printf %s "$PASSWORD" | rampart user reset-password EMAIL --password-stdin',
    );
  return password;
}

/**
 * `rampart user reset-password EMAIL [--password-stdin]`: the way back from a lost password (an
 * Admin's included). A generated password is printed once; the user's sessions end. On the
 * embedded database the server must be stopped (it holds the database); on PostgreSQL any time.
 */
export async function userResetPasswordCommand(
  cli: CliEnv,
  opts: JsonFlag & { email: string; passwordStdin?: boolean },
): Promise<void> {
  const chosen = opts.passwordStdin ? await readPasswordFromStdin(cli) : undefined;
  try {
    await withRuntime(
      cli,
      'user reset-password',
      async (rt) => {
        const user = await userByEmail(rt, opts.email);
        const password = await rt.services.users.resetPassword(
          { organizationId: user.organizationId, actor: CLI_ACTOR },
          user.id,
          chosen,
        );
        const generated = chosen === undefined ? password : null;
        print(
          cli,
          opts,
          { Email: user.email, Password: generated, SessionsEnded: true },
          generated
            ? `New password for ${user.email}: ${generated}\nIt is shown only now: store it safely. Their sessions have ended.`
            : `The password of ${user.email} was set from stdin. Their sessions have ended.`,
        );
      },
      { existing: true },
    );
  } catch (error) {
    if (error instanceof DatabaseLockedError)
      throw new DatabaseLockedError(
        error.dataDir,
        error.holder,
        'On the embedded database a password is reset only while the server is stopped. ' +
          'Stop the server, then run rampart user reset-password again; or, signed in as another Admin, ' +
          'reset it in the web app (Users).',
      );
    throw error;
  }
}

/**
 * `rampart user reset-mfa EMAIL`: the way back from a lost second factor when no other Admin can
 * reset it in the web app (the only Admin lost their phone and recovery codes). The factor and
 * recovery codes are removed and the user's sessions end (docs/mfa.md).
 */
export async function userResetMfaCommand(cli: CliEnv, opts: JsonFlag & { email: string }): Promise<void> {
  await withRuntime(
    cli,
    'user reset-mfa',
    async (rt) => {
      // A second factor belongs to each membership: the person's lost phone held them all.
      const memberships = await membershipsByEmail(rt, opts.email);
      const user = memberships[0];
      let hadFactor = false;
      for (const m of memberships) {
        const reset = await rt.services.mfa.reset(
          { organizationId: m.organizationId, actor: CLI_ACTOR },
          m.id,
        );
        hadFactor ||= reset.hadFactor;
      }
      print(
        cli,
        opts,
        { Email: user.email, HadFactor: hadFactor, SessionsEnded: true },
        hadFactor
          ? `The two-step verification of ${user.email} was reset; their sessions have ended. They sign in with their password alone, or set a new factor up at sign-in when their organisation requires one.`
          : `${user.email} had no second factor; their sessions have ended.`,
      );
    },
    { existing: true },
  );
}

export async function apiKeyCreateCommand(
  cli: CliEnv,
  opts: JsonFlag & { user: string; name: string; expiresInDays?: string },
): Promise<void> {
  let days: number | undefined;
  if (opts.expiresInDays !== undefined) {
    if (!/^\d+$/.test(opts.expiresInDays)) {
      throw AppError.of(
        Problems.ValidationFailed,
        `--expires-in-days must be a whole number, not '${opts.expiresInDays}'.`,
      );
    }
    days = Number(opts.expiresInDays);
  }
  await withRuntime(cli, 'apikey create', async (rt) => {
    const user = await userByEmail(rt, opts.user);
    const { key, secretKey } = await rt.services.apiKeys.create(
      { organizationId: user.organizationId, actor: CLI_ACTOR },
      { userId: user.id, name: opts.name, expiresInDays: days },
    );
    print(
      cli,
      opts,
      { AccessKey: key.accessKey, SecretKey: secretKey },
      [
        `Created API key "${key.name}" for ${user.email}${key.expiresAt ? `, expiring ${key.expiresAt.toISOString()}` : ''}.`,
        `Access key: ${key.accessKey}`,
        `Secret key: ${secretKey}`,
        'The secret key is shown only now: store it safely.',
      ].join('\n'),
    );
  });
}

export async function apiKeyListCommand(cli: CliEnv, opts: JsonFlag & { user: string }): Promise<void> {
  await withRuntime(
    cli,
    'apikey list',
    async (rt) => {
      const user = await userByEmail(rt, opts.user);
      const keys = await rt.services.apiKeys.listForUser(
        { organizationId: user.organizationId, actor: CLI_ACTOR },
        user.id,
      );
      const rows = keys.map(
        (k) =>
          `${k.accessKey}  ${k.status.padEnd(7)}  created ${k.createdAt.toISOString()}  last used ${iso(k.lastUsedAt) ?? 'never'}` +
          `  expires ${iso(k.expiresAt) ?? 'never'}  ${k.name}`,
      );
      print(cli, opts, keys.map(keyJson), rows.length ? rows.join('\n') : `${user.email} has no API keys.`);
    },
    READ_ONLY,
  );
}

export async function apiKeyRevokeCommand(
  cli: CliEnv,
  opts: JsonFlag & { accessKey: string },
): Promise<void> {
  await withRuntime(cli, 'apikey revoke', async (rt) => {
    const key = await rt.services.apiKeys.revokeByAccessKey(CLI_ACTOR, opts.accessKey);
    print(cli, opts, keyJson(key), `Revoked API key ${key.accessKey} ("${key.name}").`);
  });
}

export async function demoCommand(
  cli: CliEnv,
  opts: JsonFlag & { org?: string; remove?: boolean },
): Promise<void> {
  if (opts.org !== undefined && !UUID.test(opts.org)) {
    throw AppError.of(
      Problems.ValidationFailed,
      `--org must be an organisation id (a UUID), not '${opts.org}'.`,
    );
  }
  await withRuntime(cli, 'demo', async (rt) => {
    const org = opts.org ? await rt.services.organizations.get(opts.org) : rt.firstOrganization;
    const ctx = { organizationId: org.id, actor: CLI_ACTOR };
    if (opts.remove) {
      const removed = await removeDemo(rt.services, ctx);
      print(
        cli,
        opts,
        { Removed: { Assets: removed.assets, Tickets: removed.tickets } },
        `Removed the demo data from "${org.name}": ${removed.assets} assets (with their findings), ${removed.tickets} tickets.`,
      );
      return;
    }
    const loaded = await loadDemo(rt.services, ctx);
    print(
      cli,
      opts,
      {
        Loaded: { Assets: loaded.assets, Findings: loaded.findings, Tickets: loaded.tickets },
        OrganizationId: org.id,
      },
      `Loaded demo data into "${org.name}": ${loaded.assets} assets, ${loaded.findings} findings, ${loaded.tickets} new tickets. ` +
        'Demo assets carry the tag "demo"; remove everything with: rampart demo --remove',
    );
  });
}
