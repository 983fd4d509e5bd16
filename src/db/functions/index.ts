import { rampartDueAt } from './rampart_due_at.js';
import { rampartRiskScore } from './rampart_risk_score.js';
import type { SqlFunction } from './types.js';

/**
 * Every SQL function applied after the migrations, one file each. Listed explicitly so the same
 * code runs from src/ and dist/. rampart_uuidv7 stays in migration 0003: it stands in for
 * PostgreSQL 18's built-in uuidv7() and reads the database clock by design, not a rule to evolve.
 * Migrations must not call these functions: on a new database they exist only after the last one.
 */
export const FUNCTIONS: readonly SqlFunction[] = [rampartRiskScore, rampartDueAt];
