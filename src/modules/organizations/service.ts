import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { OrganizationRepository } from './repository.js';

export interface Organization {
  id: string;
  name: string;
  createdAt: Date;
  /** When it was deactivated: its sessions and API keys stop, its schedules stop firing. */
  deactivatedAt: Date | null;
  active: boolean;
}

const DEFAULT_NAME = 'Default organisation';

function toOrganization(row: {
  id: string;
  name: string;
  created_at: Date;
  deactivated_at: Date | null;
}): Organization {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    deactivatedAt: row.deactivated_at,
    active: row.deactivated_at === null,
  };
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200)
    throw AppError.of(Problems.ValidationFailed, 'An organisation name must have 1 to 200 characters.', {
      errors: [{ path: '/Name', message: 'must have 1 to 200 characters' }],
    });
  return trimmed;
}

export class OrganizationService {
  constructor(
    private readonly repo: OrganizationRepository,
    private readonly clock: Clock,
  ) {}

  /** A new organisation; names are unique (ignoring case), so that people can tell them apart. */
  async create(name: string): Promise<Organization> {
    const trimmed = checkedName(name);
    await this.checkNameFree(trimmed);
    return toOrganization(await this.repo.insert(uuidv7(), trimmed, this.clock()));
  }

  async rename(id: string, name: string): Promise<Organization> {
    const trimmed = checkedName(name);
    await this.checkNameFree(trimmed, id);
    const row = await this.repo.update(id, { name: trimmed });
    if (!row) throw AppError.of(Problems.NotFound, `No organisation ${id}.`);
    return toOrganization(row);
  }

  /** Deactivates (at the clock's time) or reactivates an organisation. */
  async setActive(id: string, active: boolean): Promise<Organization> {
    const current = await this.get(id);
    if (current.active === active) return current;
    const row = await this.repo.update(id, { deactivated_at: active ? null : this.clock() });
    if (!row) throw AppError.of(Problems.NotFound, `No organisation ${id}.`);
    return toOrganization(row);
  }

  async isActive(id: string): Promise<boolean> {
    const row = await this.repo.findById(id);
    return !!row && row.deactivated_at === null;
  }

  private async checkNameFree(name: string, exceptId?: string): Promise<void> {
    const taken = await this.repo.findByName(name);
    if (taken && taken.id !== exceptId)
      throw AppError.of(Problems.Conflict, `An organisation named "${taken.name}" exists already.`);
  }

  async get(id: string): Promise<Organization> {
    const row = await this.repo.findById(id);
    if (!row) throw AppError.of(Problems.NotFound, `No organisation ${id}.`);
    return toOrganization(row);
  }

  /** The first organisation, created on an empty database. */
  async ensureFirst(): Promise<{ organization: Organization; created: boolean }> {
    const { row, created } = await this.repo.findOrCreateFirst(uuidv7(), DEFAULT_NAME, this.clock());
    return { organization: toOrganization(row), created };
  }

  async first(): Promise<Organization | undefined> {
    const row = await this.repo.findFirst();
    return row ? toOrganization(row) : undefined;
  }

  async list(): Promise<Organization[]> {
    return (await this.repo.list()).map(toOrganization);
  }
}
