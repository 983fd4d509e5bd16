import { type Kysely, sql } from 'kysely';

// Tenant tables lead their primary keys with organization_id, so the schema can be distributed
// by organisation (Citus) and every lookup is naturally scoped to one tenant.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) =>
      c.notNull().check(sql`role in ('ReadOnly', 'Analyst', 'Manager', 'Admin')`),
    )
    .addColumn('password_hash', 'text')
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('users_pkey', ['organization_id', 'id'])
    .addUniqueConstraint('users_id_key', ['id'])
    .execute();
  // Sign-in is by email alone, so an address identifies one user across all organisations.
  await sql`create unique index users_email_key on users (lower(email))`.execute(db);

  await db.schema
    .createTable('api_keys')
    .addColumn('organization_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('access_key', 'text', (c) => c.notNull().unique())
    .addColumn('secret_salt', 'bytea', (c) => c.notNull())
    .addColumn('secret_hash', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addPrimaryKeyConstraint('api_keys_pkey', ['organization_id', 'id'])
    .addForeignKeyConstraint('api_keys_user_fkey', ['organization_id', 'user_id'], 'users', [
      'organization_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('api_keys_user_idx')
    .on('api_keys')
    .columns(['organization_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('organization_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('token_hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('csrf_token_hash', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('idle_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('absolute_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addPrimaryKeyConstraint('sessions_pkey', ['organization_id', 'id'])
    .addForeignKeyConstraint('sessions_user_fkey', ['organization_id', 'user_id'], 'users', [
      'organization_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('sessions_user_idx')
    .on('sessions')
    .columns(['organization_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'uuid')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'uuid')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('ip_address', 'text')
    .addColumn('request_id', 'text')
    .addPrimaryKeyConstraint('audit_events_pkey', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_time_idx')
    .on('audit_events')
    .columns(['organization_id', 'occurred_at'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
