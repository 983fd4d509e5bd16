/**
 * A SQL function kept out of the migrations so that changing it is a diff of one file: its
 * definition is applied after the migrations whenever its text changes (src/db/migrate.ts).
 */
export interface SqlFunction {
  name: string;
  /**
   * One `create or replace function` statement. A new body or volatility replaces the old one in
   * place; a new argument list or return type needs a migration that drops the old function first.
   */
  definition: string;
}
