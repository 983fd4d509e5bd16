import { ROLES, type Role } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { keysetPage } from '../../lib/cursor.js';
import type { Listeners } from '../../lib/listeners.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid, invalidFields } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { EventsService } from '../events/service.js';
import { cursorKey } from '../paging.js';
import { generatePassword, hashPassword, passwordProblems, verifyPassword } from './password.js';
import type { UserRepository } from './repository.js';

/** A person's membership of one organisation (docs/organisations.md). */
export interface User {
  id: string;
  organizationId: string;
  /** The person: one email and password for all their memberships. */
  personId: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  createdAt: Date;
}

/** Who signs in, once for the whole installation. */
export interface Person {
  id: string;
  email: string;
  installationAdmin: boolean;
  lastOrganizationId: string | null;
}

const toPerson = (row: {
  id: string;
  email: string;
  installation_admin: boolean;
  last_organization_id: string | null;
}): Person => ({
  id: row.id,
  email: row.email,
  installationAdmin: row.installation_admin,
  lastOrganizationId: row.last_organization_id,
});

export interface NewUser {
  email: string;
  name?: string;
  role: Role;
  password?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  totalCount: number;
}

// Deliberately simple: one @, something on each side, a dot in the domain, no spaces.
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface UserChanges {
  name?: string;
  role?: Role;
  active?: boolean;
}

/**
 * Raised when a user's access must end or be re-read (deactivation, role change, new password):
 * sessions and API key caches live in other modules, which follow it.
 */
export type UserAccessChanged = Listeners<
  [organizationId: string, userId: string, options: { endSessions: boolean; keepSessionId?: string }]
>;

export class UserService {
  constructor(
    private readonly repo: UserRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly accessChanged: UserAccessChanged,
    private readonly events: EventsService,
  ) {}

  /** Changes name, role or status. The organisation always keeps at least one active Admin. */
  async update(ctx: ServiceContext, id: string, changes: UserChanges): Promise<User> {
    const current = await this.get(ctx, id);
    const name = changes.name?.trim();
    if (name !== undefined && (name.length === 0 || name.length > 200)) {
      throw invalid('name', 'must have 1 to 200 characters');
    }
    const losesAdmin =
      current.role === 'Admin' &&
      current.active &&
      ((changes.role !== undefined && changes.role !== 'Admin') || changes.active === false);
    if (losesAdmin && (await this.repo.countAdmins(ctx.organizationId)) <= 1) {
      throw AppError.of(
        Problems.Conflict,
        'This would leave the organisation without an active Admin; make someone else Admin first.',
      );
    }
    // The change and its user.role_changed event commit together.
    const user = await this.repo.transaction(async (trx) => {
      const updated = await this.repo.update(
        ctx.organizationId,
        id,
        this.clock(),
        {
          ...(name !== undefined ? { name } : {}),
          ...(changes.role !== undefined ? { role: changes.role } : {}),
          ...(changes.active !== undefined ? { active: changes.active } : {}),
        },
        trx,
      );
      if (updated && updated.role !== current.role)
        await this.events.publish(
          trx,
          ctx.organizationId,
          'user.role_changed',
          {
            User: { Id: updated.id, Email: updated.email, Name: updated.name },
            FromRole: current.role,
            ToRole: updated.role,
            Actor: { Type: ctx.actor.type, Id: ctx.actor.id },
          },
          { subject: `users/${updated.id}` },
        );
      return updated;
    });
    if (!user) throw AppError.of(Problems.NotFound, `No user ${id} in your organisation.`);
    const roleChanged = user.role !== current.role;
    const deactivated = current.active && !user.active;
    if (roleChanged || deactivated || user.active !== current.active) {
      await this.accessChanged.notify(ctx.organizationId, id, { endSessions: deactivated });
    }
    await this.audit.record(
      ctx,
      'user.updated',
      { type: 'user', id },
      {
        ...(name !== undefined && name !== current.name ? { name } : {}),
        ...(roleChanged ? { role: { from: current.role, to: user.role } } : {}),
        ...(user.active !== current.active ? { active: user.active } : {}),
      },
    );
    // Its own action too, so that the log can be filtered on role changes (they change access).
    if (roleChanged)
      await this.audit.record(
        ctx,
        'user.role_changed',
        { type: 'user', id },
        { from: current.role, to: user.role },
      );
    return user;
  }

  /**
   * A user's password is reset (by an Admin, or `rampart user reset-password`): to `chosen`, or to a
   * generated one, returned once; their sessions end.
   */
  async resetPassword(ctx: ServiceContext, id: string, chosen?: string): Promise<string> {
    const user = await this.get(ctx, id);
    const memberships = await this.repo.membershipsOf(user.personId);
    // The password is the person's: an organisation's Admin must not take over what they do in
    // another organisation. The person, or the operator (rampart user reset-password), resets it.
    if (ctx.actor.type !== 'cli' && memberships.some((m) => m.organizationId !== ctx.organizationId)) {
      throw AppError.of(
        Problems.Conflict,
        `${user.email} also belongs to other organisations, so their password is not this organisation's to reset: they change it themselves (Account), or the operator runs rampart user reset-password.`,
      );
    }
    if (chosen !== undefined) {
      const problems = passwordProblems(chosen, user.email);
      if (problems.length > 0)
        throw AppError.of(Problems.ValidationFailed, `The password ${problems.join('; ')}.`, {
          errors: problems.map((message) => ({ path: '/Password', message })),
        });
    }
    const password = chosen ?? generatePassword();
    await this.repo.updatePerson(user.personId, this.clock(), {
      password_hash: await hashPassword(password),
    });
    for (const m of memberships)
      await this.accessChanged.notify(m.organizationId, m.id, { endSessions: true });
    await this.audit.record(ctx, 'user.password_reset', { type: 'user', id });
    return password;
  }

  /** A user changes their own password; every other session of theirs ends. */
  async changeOwnPassword(
    ctx: ServiceContext,
    userId: string,
    input: { currentPassword: string; newPassword: string; keepSessionId?: string },
  ): Promise<void> {
    const user = await this.get(ctx, userId);
    const stored = await this.passwordHashOf(user);
    const issues: { path: string; message: string }[] = [];
    if (!stored || !(await verifyPassword(input.currentPassword, stored))) {
      issues.push({ path: '/CurrentPassword', message: 'is not your current password' });
    }
    for (const p of passwordProblems(input.newPassword, user.email))
      issues.push({ path: '/NewPassword', message: p });
    if (input.newPassword === input.currentPassword) {
      issues.push({ path: '/NewPassword', message: 'must differ from the current password' });
    }
    if (issues.length > 0) {
      throw AppError.of(Problems.ValidationFailed, issues.map((i) => `${i.path}: ${i.message}`).join('; '), {
        errors: issues,
      });
    }
    await this.repo.updatePerson(user.personId, this.clock(), {
      password_hash: await hashPassword(input.newPassword),
    });
    // One password for all the person's memberships: their sessions everywhere end but this one.
    for (const m of await this.repo.membershipsOf(user.personId))
      await this.accessChanged.notify(m.organizationId, m.id, {
        endSessions: true,
        keepSessionId: input.keepSessionId,
      });
    await this.audit.record(ctx, 'user.password_changed', { type: 'user', id: userId });
  }

  async create(ctx: ServiceContext, input: NewUser): Promise<User> {
    const email = input.email.trim();
    const issues: { field: keyof NewUser; message: string }[] = [];
    if (!EMAIL.test(email) || email.length > 320)
      issues.push({ field: 'email', message: 'is not an email address' });
    if (!ROLES.includes(input.role))
      issues.push({ field: 'role', message: `must be one of ${ROLES.join(', ')}` });
    if (input.password !== undefined) {
      for (const p of passwordProblems(input.password, email)) issues.push({ field: 'password', message: p });
    }
    const name = (input.name ?? email.split('@')[0] ?? email).trim();
    if (name.length === 0 || name.length > 200)
      issues.push({ field: 'name', message: 'must have 1 to 200 characters' });
    if (issues.length > 0) throw invalidFields(issues);
    if (await this.repo.findByEmail(ctx.organizationId, email)) {
      throw AppError.of(Problems.Conflict, `A user with email ${email} already exists in your organisation.`);
    }
    const person = await this.repo.findPersonByEmail(email);
    if (person && input.password !== undefined) {
      // Their password is theirs: an Admin adds them, they sign in with what they already have.
      throw AppError.of(
        Problems.Conflict,
        `${email} already has an account in another organisation: add them without a password; they sign in with their own and switch to this organisation.`,
      );
    }
    const now = this.clock();
    const user = await this.repo.transaction(async (trx) => {
      const personId =
        person?.id ??
        (
          await this.repo.insertPerson(
            {
              id: uuidv7(),
              email,
              password_hash: input.password === undefined ? null : await hashPassword(input.password),
              last_organization_id: ctx.organizationId,
              created_at: now,
              updated_at: now,
            },
            trx,
          )
        ).id;
      return this.repo.insert(
        {
          organization_id: ctx.organizationId,
          id: uuidv7(),
          person_id: personId,
          email: person?.email ?? email,
          name,
          role: input.role,
          created_at: now,
          updated_at: now,
        },
        trx,
      );
    });
    await this.audit.record(
      ctx,
      'user.created',
      { type: 'user', id: user.id },
      { email, role: user.role, ...(person ? { existingPerson: true } : {}) },
    );
    return user;
  }

  async get(ctx: ServiceContext, id: string): Promise<User> {
    const user = await this.repo.findById(ctx.organizationId, id);
    if (!user) throw AppError.of(Problems.NotFound, `No user ${id} in your organisation.`);
    return user;
  }

  /** The person of an email, their password hash and memberships, for a sign-in attempt. */
  async findForSignIn(
    email: string,
  ): Promise<{ person: Person; passwordHash: string | null; memberships: User[] } | undefined> {
    const row = await this.repo.findPersonByEmail(email.trim());
    if (!row) return undefined;
    return {
      person: toPerson(row),
      passwordHash: row.password_hash,
      memberships: await this.repo.membershipsOf(row.id),
    };
  }

  /** The password hash of the person behind a membership (null: they have none). */
  async passwordHashOf(user: User): Promise<string | null> {
    return (await this.repo.findPerson(user.personId))?.password_hash ?? null;
  }

  /** The membership of this email in the organisation. */
  async findInOrganization(organizationId: string, email: string): Promise<User | undefined> {
    return this.repo.findByEmail(organizationId, email.trim());
  }

  /** The first membership of the person with this email, whichever organisation it is in. */
  async findByEmail(email: string): Promise<User | undefined> {
    return (await this.findForSignIn(email))?.memberships[0];
  }

  /** Whether a person (in any organisation) has this email. */
  async personExists(email: string): Promise<boolean> {
    return !!(await this.repo.findPersonByEmail(email.trim()));
  }

  async person(personId: string): Promise<Person> {
    const row = await this.repo.findPerson(personId);
    if (!row) throw AppError.of(Problems.NotFound, `No person ${personId}.`);
    return toPerson(row);
  }

  /** Every membership of a person, oldest first (the organisations they can switch between). */
  membershipsOf(personId: string): Promise<User[]> {
    return this.repo.membershipsOf(personId);
  }

  /** Where the person's next password sign-in starts. */
  async rememberOrganization(personId: string, organizationId: string): Promise<void> {
    await this.repo.updatePerson(personId, this.clock(), { last_organization_id: organizationId });
  }

  /** Makes a person an installation Admin, or no longer one (rampart user installation-admin). */
  async setInstallationAdmin(email: string, on: boolean): Promise<Person> {
    const row = await this.repo.findPersonByEmail(email.trim());
    if (!row) throw AppError.of(Problems.NotFound, `No user with email ${email}.`);
    if (!on && row.installation_admin && (await this.repo.listInstallationAdmins()).length <= 1)
      throw AppError.of(
        Problems.Conflict,
        'This would leave the installation without an installation Admin; make someone else one first.',
      );
    await this.repo.updatePerson(row.id, this.clock(), { installation_admin: on });
    return { ...toPerson(row), installationAdmin: on };
  }

  /** Every member's sessions end and their cached API keys go (their organisation was deactivated). */
  async endAccessIn(organizationId: string): Promise<void> {
    for (const user of await this.listAll({ organizationId, actor: { type: 'system', id: null } }))
      await this.accessChanged.notify(organizationId, user.id, { endSessions: true });
  }

  /** How many members each organisation has. */
  memberCounts(): Promise<Map<string, number>> {
    return this.repo.countsByOrganization();
  }

  async list(ctx: ServiceContext, pageSize: number, cursor?: string): Promise<Page<User>> {
    const afterId = cursor ? cursorKey(cursor, ['Id']).Id : undefined;
    const rows = await this.repo.listPage(ctx.organizationId, pageSize + 1, afterId);
    return {
      ...keysetPage(rows, pageSize, (u) => ({ Id: u.id })),
      totalCount: await this.repo.count(ctx.organizationId),
    };
  }

  /** Every user of the organisation (the integration channel's unpaged list). */
  async listAll(ctx: ServiceContext): Promise<User[]> {
    const all: User[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.list(ctx, 500, cursor);
      all.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return all;
  }

  /**
   * Makes sure an Admin with this email exists. An existing user is kept as is; a new one gets the
   * given password or a generated one, returned so that it can be shown once.
   */
  async ensureAdmin(
    ctx: ServiceContext,
    email: string,
    password?: string,
  ): Promise<{ user: User; created: boolean; generatedPassword?: string }> {
    const existing = await this.findInOrganization(ctx.organizationId, email);
    if (existing) return { user: existing, created: false };
    const generatedPassword = password === undefined ? generatePassword() : undefined;
    const user = await this.create(ctx, {
      email,
      name: 'Administrator',
      role: 'Admin',
      password: password ?? generatedPassword,
    });
    // The first Admin of a new installation runs it too: someone must be able to add organisations.
    if ((await this.repo.listInstallationAdmins()).length === 0)
      await this.repo.updatePerson(user.personId, this.clock(), { installation_admin: true });
    return generatedPassword ? { user, created: true, generatedPassword } : { user, created: true };
  }

  /** Name and email of each of these users of the organisation, by id (unknown ids left out). */
  async namesOf(
    organizationId: string,
    ids: readonly string[],
  ): Promise<Map<string, { name: string; email: string }>> {
    if (ids.length === 0) return new Map();
    const rows = await this.repo.namesOf(organizationId, ids);
    return new Map(rows.map((r) => [r.id, { name: r.name, email: r.email }]));
  }
}
