import type { Static } from 'typebox';
import type { CreateUserSchema, UpdateUserSchema } from './schemas.js';
import type { NewUser, User, UserChanges } from './service.js';

// How users look on the wire, and how requests become the service's input.

/** Who a user is, as lists, the account and the session name them. */
export const toUserSummaryDto = (u: User) => ({ Id: u.id, Name: u.name, Email: u.email, Role: u.role });

export const toUserDto = (u: User) => ({
  ...toUserSummaryDto(u),
  Active: u.active,
  CreatedAt: u.createdAt.toISOString(),
});

export const newUserFromBody = (b: Static<typeof CreateUserSchema>): NewUser => ({
  email: b.Email,
  name: b.Name,
  role: b.Role,
  password: b.Password,
});

export const userChangesFromBody = (b: Static<typeof UpdateUserSchema>): UserChanges => ({
  name: b.Name,
  role: b.Role,
  active: b.Active,
});
