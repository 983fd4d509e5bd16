import { expressionBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * The asset columns other modules may read, as a relation to join under an alias of their choice,
 * for listings that show, filter or score by asset columns and must stay one query (findings,
 * tickets). PostgreSQL pulls the subquery up into the join, so the plan is that of a plain join.
 */
export function joinableAssets<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('assets')
    .select(['organization_id', 'id', 'name', 'tags', 'criticality', 'internet_facing', 'ip_addresses'])
    .as(alias);
}

/** The asset joined as `alias` carries the tag. */
export function assetTagged(alias: string, tag: string) {
  return sql<boolean>`${sql.ref(`${alias}.tags`)} @> array[${tag}]::text[]`;
}

/** What the history (src/modules/history) reads of each asset: its tags and when it was seen. */
export function historyAssets<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('assets')
    .select(['organization_id', 'id', 'tags', 'first_seen_at', 'last_seen_at'])
    .as(alias);
}
