import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScanKind } from '../../scanning/types.js';
import type { ScanTemplate } from './types.js';

/** Every column a template has, under its domain name. */
const COLUMNS = [
  'id',
  'kind',
  'name',
  'description',
  'settings',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

/** An organisation's template: never built in; its settings were checked for its kind when written. */
const ownTemplate = (row: Omit<ScanTemplate, 'builtIn' | 'settings'> & { settings: unknown }) =>
  ({ ...row, builtIn: false }) as ScanTemplate;

/** An organisation's own scan templates. */
export class ScanTemplateRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, kind?: ScanKind): Promise<ScanTemplate[]> {
    let q = this.db
      .selectFrom('scan_templates')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId);
    if (kind) q = q.where('kind', '=', kind);
    return (await q.orderBy('name').execute()).map(ownTemplate);
  }

  async find(organizationId: string, id: string): Promise<ScanTemplate | undefined> {
    const row = await this.db
      .selectFrom('scan_templates')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? ownTemplate(row) : undefined;
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
    return ownTemplate(row);
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
    return row ? ownTemplate(row) : undefined;
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
