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

export interface User {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  createdAt: Date;
}

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
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

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
    if (chosen !== undefined) {
      const problems = passwordProblems(chosen, user.email);
      if (problems.length > 0)
        throw AppError.of(Problems.ValidationFailed, `The password ${problems.join('; ')}.`, {
          errors: problems.map((message) => ({ path: '/Password', message })),
        });
    }
    const password = chosen ?? generatePassword();
    await this.repo.update(ctx.organizationId, id, this.clock(), {
      password_hash: await hashPassword(password),
    });
    await this.accessChanged.notify(ctx.organizationId, id, { endSessions: true });
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
    const stored = await this.repo.passwordHashOf(ctx.organizationId, userId);
    const issues: { path: string; message: string }[] = [];
    if (!stored?.password_hash || !(await verifyPassword(input.currentPassword, stored.password_hash))) {
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
    await this.repo.update(ctx.organizationId, userId, this.clock(), {
      password_hash: await hashPassword(input.newPassword),
    });
    await this.accessChanged.notify(ctx.organizationId, userId, {
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
    if (await this.repo.findByEmail(email)) {
      throw AppError.of(Problems.Conflict, `A user with email ${email} already exists.`);
    }
    const now = this.clock();
    const user = await this.repo.insert({
      organization_id: ctx.organizationId,
      id: uuidv7(),
      email,
      name,
      role: input.role,
      password_hash: input.password === undefined ? null : await hashPassword(input.password),
      created_at: now,
      updated_at: now,
    });
    await this.audit.record(ctx, 'user.created', { type: 'user', id: user.id }, { email, role: user.role });
    return user;
  }

  async get(ctx: ServiceContext, id: string): Promise<User> {
    const user = await this.repo.findById(ctx.organizationId, id);
    if (!user) throw AppError.of(Problems.NotFound, `No user ${id} in your organisation.`);
    return user;
  }

  /** The user and password hash for a sign-in attempt. */
  async findForSignIn(email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const row = await this.repo.findByEmail(email.trim());
    if (!row) return undefined;
    const { passwordHash, ...user } = row;
    return { user, passwordHash };
  }

  async findByEmail(email: string): Promise<User | undefined> {
    return (await this.findForSignIn(email))?.user;
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
    const existing = await this.findByEmail(email);
    if (existing) return { user: existing, created: false };
    const generatedPassword = password === undefined ? generatePassword() : undefined;
    const user = await this.create(ctx, {
      email,
      name: 'Administrator',
      role: 'Admin',
      password: password ?? generatedPassword,
    });
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
