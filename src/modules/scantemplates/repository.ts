import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScanKind } from '../../scanning/types.js';
import type { ScanTemplate } from './types.js';

const COLUMNS = ['id', 'kind', 'name', 'description', 'settings', 'created_at', 'updated_at'] as const;

type Row = {
  id: string;
  kind: ScanKind;
  name: string;
  description: string | null;
  settings: unknown;
  created_at: Date;
  updated_at: Date;
};

function toTemplate(r: Row): ScanTemplate {
  // The settings were checked for the row's kind when they were written.
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    description: r.description,
    builtIn: false,
    settings: r.settings,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  } as ScanTemplate;
}

/** An organisation's own scan templates. */
export class ScanTemplateRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, kind?: ScanKind): Promise<ScanTemplate[]> {
    let q = this.db
      .selectFrom('scan_templates')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId);
    if (kind) q = q.where('kind', '=', kind);
    return (await q.orderBy('name').execute()).map(toTemplate);
  }

  async find(organizationId: string, id: string): Promise<ScanTemplate | undefined> {
    const row = await this.db
      .selectFrom('scan_templates')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toTemplate(row) : undefined;
  }

  async nameTaken(organizationId: string, kind: ScanKind, name: string, exceptId?: string): Promise<boolean> {
    let q = this.db
      .selectFrom('scan_templates')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('kind', '=', kind)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
    if (exceptId) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async insert(
    organizationId: string,
    t: { id: string; kind: ScanKind; name: string; description: string | null; settings: unknown },
    createdBy: string | null,
    now: Date,
  ): Promise<ScanTemplate> {
    const row = await this.db
      .insertInto('scan_templates')
      .values({
        organization_id: organizationId,
        id: t.id,
        kind: t.kind,
        name: t.name,
        description: t.description,
        settings: JSON.stringify(t.settings),
        created_by: createdBy,
        created_at: now,
        updated_at: now,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return toTemplate(row);
  }

  async update(
    organizationId: string,
    id: string,
    t: { name: string; description: string | null; settings: unknown },
    now: Date,
  ): Promise<ScanTemplate | undefined> {
    const row = await this.db
      .updateTable('scan_templates')
      .set({
        name: t.name,
        description: t.description,
        settings: JSON.stringify(t.settings),
        updated_at: now,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
    return row ? toTemplate(row) : undefined;
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('scan_templates')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
