import { type RawBuilder, sql } from 'kysely';

/**
 * Whether the occurrence `key` of the organisation `organizationId` (SQL expressions of the
 * caller's query) was published once already (EventsService.publishFromQuery with `once`): for a
 * periodic look that leaves out, by the marks' primary key, what it announced before, instead of
 * offering every candidate again. The once-only publish checks the mark itself as well.
 */
export function alreadyPublished(
  organizationId: RawBuilder<unknown>,
  key: RawBuilder<unknown>,
): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from event_marks em where em.organization_id = ${organizationId} and em.key = ${key})`;
}
