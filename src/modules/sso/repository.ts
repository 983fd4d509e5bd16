import type { Kysely } from 'kysely';
import type { DB, Role } from '../../db/schema.js';

const PROVIDER_COLUMNS = [
  'organization_id',
  'id',
  'name',
  'issuer_url',
  'client_id',
  'client_secret',
  'scopes',
  'groups_claim',
  'default_role',
  'role_mappings',
  'enabled',
  'created_at',
  'updated_at',
] as const;

export interface ProviderWrite {
  name: string;
  issuerUrl: string;
  clientId: string;
  clientSecret: string | null;
  scopes: string[];
  groupsClaim: string;
  defaultRole: Role | null;
  roleMappings: { group: string; role: Role }[];
  enabled: boolean;
}

/** SQL of single sign-on: providers, linked identities, attempts under way, the organisation's setting. */
export class SsoRepository {
  constructor(private readonly db: Kysely<DB>) {}

  listProviders(organizationId: string) {
    return this.db
      .selectFrom('sso_providers')
      .select(PROVIDER_COLUMNS)
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .execute();
  }

  /** Every enabled provider of the installation, for the sign-in page (which knows no organisation). */
  listEnabledProviders() {
    return this.db
      .selectFrom('sso_providers')
      .select(['organization_id', 'id', 'name'])
      .where('enabled', '=', true)
      .orderBy('name')
      .orderBy('id')
      .limit(100)
      .execute();
  }

  findProvider(organizationId: string, id: string) {
    return this.db
      .selectFrom('sso_providers')
      .select(PROVIDER_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** A provider by its id alone: the sign-in flow starts from a link that carries no organisation. */
  findProviderAnywhere(id: string) {
    return this.db
      .selectFrom('sso_providers')
      .select(PROVIDER_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async insertProvider(organizationId: string, id: string, p: ProviderWrite, now: Date) {
    return this.db
      .insertInto('sso_providers')
      .values({
        organization_id: organizationId,
        id,
        name: p.name,
        issuer_url: p.issuerUrl,
        client_id: p.clientId,
        client_secret: p.clientSecret,
        scopes: p.scopes,
        groups_claim: p.groupsClaim,
        default_role: p.defaultRole,
        role_mappings: JSON.stringify(p.roleMappings),
        enabled: p.enabled,
        created_at: now,
        updated_at: now,
      })
      .returning(PROVIDER_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  updateProvider(organizationId: string, id: string, p: ProviderWrite, now: Date) {
    return this.db
      .updateTable('sso_providers')
      .set({
        name: p.name,
        issuer_url: p.issuerUrl,
        client_id: p.clientId,
        client_secret: p.clientSecret,
        scopes: p.scopes,
        groups_claim: p.groupsClaim,
        default_role: p.defaultRole,
        role_mappings: JSON.stringify(p.roleMappings),
        enabled: p.enabled,
        updated_at: now,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(PROVIDER_COLUMNS)
      .executeTakeFirst();
  }

  async deleteProvider(organizationId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sso_providers')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Whether another provider of the organisation has this name, or this issuer and client. */
  findClash(
    organizationId: string,
    exceptId: string | null,
    name: string,
    issuerUrl: string,
    clientId: string,
  ) {
    let query = this.db
      .selectFrom('sso_providers')
      .select(['id', 'name', 'issuer_url', 'client_id'])
      .where('organization_id', '=', organizationId)
      .where((eb) =>
        eb.or([
          eb(eb.fn('lower', ['name']), '=', name.toLowerCase()),
          eb.and([eb('issuer_url', '=', issuerUrl), eb('client_id', '=', clientId)]),
        ]),
      );
    if (exceptId) query = query.where('id', '!=', exceptId);
    return query.executeTakeFirst();
  }

  async insertAttempt(a: {
    organizationId: string;
    id: string;
    providerId: string;
    cookieHash: Buffer;
    state: string;
    nonce: string;
    codeVerifier: string;
    now: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.db
      .insertInto('sso_attempts')
      .values({
        organization_id: a.organizationId,
        id: a.id,
        provider_id: a.providerId,
        cookie_hash: a.cookieHash,
        state: a.state,
        nonce: a.nonce,
        code_verifier: a.codeVerifier,
        created_at: a.now,
        expires_at: a.expiresAt,
      })
      .execute();
  }

  /** Takes an attempt out (it is used once, whatever comes of it): the row, or undefined. */
  takeAttempt(organizationId: string, cookieHash: Buffer) {
    return this.db
      .deleteFrom('sso_attempts')
      .where('organization_id', '=', organizationId)
      .where('cookie_hash', '=', cookieHash)
      .returning(['organization_id', 'id', 'provider_id', 'state', 'nonce', 'code_verifier', 'expires_at'])
      .executeTakeFirst();
  }

  /** Attempts nobody came back from: removed when a new one starts, so that the table stays small. */
  async deleteExpiredAttempts(now: Date): Promise<void> {
    await this.db.deleteFrom('sso_attempts').where('expires_at', '<=', now).execute();
  }

  findIdentity(organizationId: string, providerId: string, subject: string) {
    return this.db
      .selectFrom('sso_identities')
      .select(['user_id'])
      .where('organization_id', '=', organizationId)
      .where('provider_id', '=', providerId)
      .where('subject', '=', subject)
      .executeTakeFirst();
  }

  async linkIdentity(organizationId: string, providerId: string, subject: string, userId: string, now: Date) {
    await this.db
      .insertInto('sso_identities')
      .values({
        organization_id: organizationId,
        provider_id: providerId,
        subject,
        user_id: userId,
        created_at: now,
        last_sign_in_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'provider_id', 'subject']).doUpdateSet({ last_sign_in_at: now }),
      )
      .execute();
  }

  async ssoOnly(organizationId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('sso_settings')
      .select('sso_only')
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.sso_only ?? false;
  }

  async setSsoOnly(organizationId: string, ssoOnly: boolean, now: Date): Promise<void> {
    await this.db
      .insertInto('sso_settings')
      .values({ organization_id: organizationId, sso_only: ssoOnly, updated_at: now })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet({ sso_only: ssoOnly, updated_at: now }))
      .execute();
  }
}
