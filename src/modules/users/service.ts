import { ROLES, type Role } from '../../db/schema.js';
import { AppError } from '../../http/problems/app-error.js';
import { Problems } from '../../http/problems/types.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import { generatePassword, hashPassword, passwordProblems } from './password.js';
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

type UserRow = Awaited<ReturnType<UserRepository['findById']>> & {};

function toUser(row: UserRow): User {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    role: row.role,
    active: row.active,
    createdAt: row.created_at,
  };
}

export class UserService {
  constructor(
    private readonly repo: UserRepository,
    private readonly audit: AuditService,
  ) {}

  async create(ctx: ServiceContext, input: NewUser): Promise<User> {
    const email = input.email.trim();
    const issues: { path: string; message: string }[] = [];
    if (!EMAIL.test(email) || email.length > 320)
      issues.push({ path: '/Email', message: 'is not an email address' });
    if (!ROLES.includes(input.role))
      issues.push({ path: '/Role', message: `must be one of ${ROLES.join(', ')}` });
    if (input.password !== undefined) {
      for (const p of passwordProblems(input.password, email)) issues.push({ path: '/Password', message: p });
    }
    const name = (input.name ?? email.split('@')[0] ?? email).trim();
    if (name.length === 0 || name.length > 200)
      issues.push({ path: '/Name', message: 'must have 1 to 200 characters' });
    if (issues.length > 0) {
      throw AppError.of(Problems.ValidationFailed, issues.map((i) => `${i.path}: ${i.message}`).join('; '), {
        errors: issues,
      });
    }
    if (await this.repo.findByEmail(email)) {
      throw AppError.of(Problems.Conflict, `A user with email ${email} already exists.`);
    }
    const row = await this.repo.insert({
      organization_id: ctx.organizationId,
      id: uuidv7(),
      email,
      name,
      role: input.role,
      password_hash: input.password === undefined ? null : await hashPassword(input.password),
      updated_at: new Date(),
    });
    const user = toUser(row);
    await this.audit.record(ctx, 'user.created', { type: 'user', id: user.id }, { email, role: user.role });
    return user;
  }

  async get(ctx: ServiceContext, id: string): Promise<User> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No user ${id} in your organisation.`);
    return toUser(row);
  }

  /** The user and password hash for a sign-in attempt. */
  async findForSignIn(email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const row = await this.repo.findByEmail(email.trim());
    return row ? { user: toUser(row), passwordHash: row.password_hash } : undefined;
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = await this.repo.findByEmail(email.trim());
    return row ? toUser(row) : undefined;
  }

  async list(ctx: ServiceContext, pageSize: number, cursor?: string): Promise<Page<User>> {
    let afterId: string | undefined;
    if (cursor) {
      const key = decodeCursor(cursor, ['Id']);
      if (!key)
        throw AppError.of(
          Problems.ValidationFailed,
          'Cursor is not valid; pass the NextCursor of a previous page.',
        );
      afterId = key.Id;
    }
    const rows = await this.repo.listPage(ctx.organizationId, pageSize + 1, afterId);
    const items = rows.slice(0, pageSize).map(toUser);
    const last = items[items.length - 1];
    const nextCursor = rows.length > pageSize && last ? encodeCursor({ Id: last.id }) : null;
    return { items, nextCursor, totalCount: await this.repo.count(ctx.organizationId) };
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
}
