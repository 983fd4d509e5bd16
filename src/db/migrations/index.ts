import type { Migration } from 'kysely';
import * as m0001 from './0001_create_core_tables.js';

/** Every migration, in order. Listed explicitly so the same code runs from src/ and dist/. */
export const migrations: Record<string, Migration> = {
  '0001_create_core_tables': m0001,
};
