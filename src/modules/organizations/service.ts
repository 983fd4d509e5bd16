import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { OrganizationRepository } from './repository.js';

export interface Organization {
  id: string;
  name: string;
  createdAt: Date;
}

const DEFAULT_NAME = 'Default organisation';

function toOrganization(row: { id: string; name: string; created_at: Date }): Organization {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export class OrganizationService {
  constructor(
    private readonly repo: OrganizationRepository,
    private readonly clock: Clock,
  ) {}

  async create(name: string): Promise<Organization> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 200) {
      throw AppError.of(Problems.ValidationFailed, 'An organisation name must have 1 to 200 characters.');
    }
    return toOrganization(await this.repo.insert(uuidv7(), trimmed, this.clock()));
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
