import type { Migration } from 'kysely';
import * as m0001 from './0001_create_core_tables.js';
import * as m0002 from './0002_create_vulnerability_model.js';

/** Every migration, in order. Listed explicitly so the same code runs from src/ and dist/. */
export const migrations: Record<string, Migration> = {
  '0001_create_core_tables': m0001,
  '0002_create_vulnerability_model': m0002,
};
