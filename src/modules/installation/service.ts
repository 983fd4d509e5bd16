import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { HistoryService } from '../history/service.js';
import type { Organization, OrganizationService } from '../organizations/service.js';
import { generatePassword } from '../users/password.js';
import { EMAIL, type User, type UserService } from '../users/service.js';

export interface InstallationOrganization extends Organization {
  members: number;
}

/**
 * Who runs the installation: an installation Admin in the web app (their person, their current
 * organisation) or the operator at the CLI.
 */
export type InstallationActor =
  | {
      kind: 'person';
      personId: string;
      email: string;
      /** The organisation their session is in: they cannot deactivate it from there. */
      currentOrganizationId: string;
      ipAddress?: string;
      requestId?: string;
    }
  | { kind: 'cli' };

/**
 * The organisations of the installation, run by installation Admins (docs/organisations.md):
 * distinct from an organisation's Admins, who run only their own.
 */
export class InstallationService {
  constructor(
    private readonly organizations: OrganizationService,
    private readonly users: UserService,
    private readonly audit: AuditService,
    private readonly history: HistoryService,
  ) {}

  async list(): Promise<InstallationOrganization[]> {
    const [organizations, counts] = await Promise.all([this.organizations.list(), this.users.memberCounts()]);
    return organizations.map((o) => ({ ...o, members: counts.get(o.id) ?? 0 }));
  }

  async get(id: string): Promise<InstallationOrganization> {
    const organization = await this.organizations.get(id);
    const counts = await this.users.memberCounts();
    return { ...organization, members: counts.get(id) ?? 0 };
  }

  /**
   * A new organisation and its first Admin: the actor by default; a person of another
   * organisation joins with their own password; a new person gets a generated one, returned once.
   */
  async create(
    actor: InstallationActor,
    input: { name: string; adminEmail?: string },
  ): Promise<{
    organization: InstallationOrganization;
    admin: User | null;
    newPerson: boolean;
    password: string | null;
  }> {
    const email = (input.adminEmail ?? (actor.kind === 'person' ? actor.email : '')).trim();
    // Checked before the organisation exists, so that a bad email leaves nothing behind. Only the
    // operator may create one without an Admin (rampart user create --org adds one later).
    if (!email && actor.kind === 'person')
      throw invalid('adminEmail', 'is required: the new organisation needs an Admin');
    if (email && (!EMAIL.test(email) || email.length > 320))
      throw invalid('adminEmail', 'is not an email address');
    const organization = await this.organizations.create(input.name);
    const ctx: ServiceContext = { organizationId: organization.id, ...this.actorOf(actor, null) };
    let admin: User | null = null;
    let password: string | null = null;
    let newPerson = false;
    if (email) {
      newPerson = !(await this.users.personExists(email));
      password = newPerson ? generatePassword() : null;
      admin = await this.users.create(ctx, {
        email,
        role: 'Admin',
        ...(newPerson ? { name: 'Administrator', password: password ?? undefined } : {}),
      });
    }
    await this.history.prepareOrganization(organization.id);
    await this.audit.record(
      { ...ctx, ...this.actorOf(actor, admin) },
      'organization.created',
      { type: 'organization', id: organization.id },
      { name: organization.name, ...(email ? { admin: email } : {}), ...this.byOf(actor) },
    );
    return { organization: { ...organization, members: admin ? 1 : 0 }, admin, newPerson, password };
  }

  async update(
    actor: InstallationActor,
    id: string,
    changes: { name?: string; active?: boolean },
  ): Promise<InstallationOrganization> {
    const current = await this.organizations.get(id);
    if (changes.active === false && current.active) await this.checkDeactivatable(actor, current);
    let organization = current;
    if (changes.name !== undefined && changes.name.trim() !== current.name)
      organization = await this.organizations.rename(id, changes.name);
    if (changes.active !== undefined && changes.active !== current.active) {
      organization = await this.organizations.setActive(id, changes.active);
      // Sessions end and cached keys go at once, on every instance (the user-access event).
      if (!changes.active) await this.users.endAccessIn(id);
    }
    const ctx: ServiceContext = { organizationId: id, ...(await this.actorIn(actor, id)) };
    if (organization.name !== current.name)
      await this.audit.record(
        ctx,
        'organization.renamed',
        { type: 'organization', id },
        { from: current.name, to: organization.name, ...this.byOf(actor) },
      );
    if (organization.active !== current.active)
      await this.audit.record(
        ctx,
        organization.active ? 'organization.reactivated' : 'organization.deactivated',
        { type: 'organization', id },
        this.byOf(actor),
      );
    return this.get(id);
  }

  private async checkDeactivatable(actor: InstallationActor, organization: Organization): Promise<void> {
    if (actor.kind === 'person' && actor.currentOrganizationId === organization.id)
      throw AppError.of(
        Problems.Conflict,
        `You are working in "${organization.name}": switch to another organisation before deactivating it.`,
      );
    const active = (await this.organizations.list()).filter((o) => o.active);
    if (active.length <= 1)
      throw AppError.of(Problems.Conflict, 'The installation keeps at least one active organisation.');
  }

  /** The actor as the organisation's audit log names it: their membership there, if they have one. */
  private async actorIn(actor: InstallationActor, organizationId: string) {
    if (actor.kind === 'cli') return this.actorOf(actor, null);
    const membership = (await this.users.membershipsOf(actor.personId)).find(
      (m) => m.organizationId === organizationId,
    );
    return this.actorOf(actor, membership ?? null);
  }

  private actorOf(
    actor: InstallationActor,
    membership: User | null,
  ): Pick<ServiceContext, 'actor'> & Partial<ServiceContext> {
    if (actor.kind === 'cli') return { actor: { type: 'cli', id: null } };
    return {
      actor:
        membership && membership.personId === actor.personId
          ? { type: 'user', id: membership.id }
          : { type: 'system', id: null },
      ...(actor.ipAddress ? { ipAddress: actor.ipAddress } : {}),
      ...(actor.requestId ? { requestId: actor.requestId } : {}),
    };
  }

  /** Who acted, by email, when the organisation's own log cannot name them as one of its users. */
  private byOf(actor: InstallationActor): Record<string, unknown> {
    return actor.kind === 'person' ? { installationAdmin: actor.email } : { installationAdmin: 'cli' };
  }
}
