import type { ServiceContext } from '../context.js';
import type {
  AgeBoundary,
  FigureScope,
  FindingFiguresRepository,
  FixedFiguresRow,
  OpenFiguresRow,
  OpenSummary,
  RiskiestAssetRow,
  RiskiestVulnerabilityRow,
} from './figures-repository.js';

export type {
  AgeBoundary,
  FigureScope,
  FixedFiguresRow,
  OpenFiguresRow,
  RiskiestAssetRow,
  RiskiestVulnerabilityRow,
};

/**
 * Aggregates over the findings for the dashboard (and reports): the findings module answers them
 * because it owns the table; what they mean and how they are put together is the dashboard's.
 */
export class FindingFiguresService {
  constructor(private readonly repo: FindingFiguresRepository) {}

  /** The open findings' figures, the riskiest assets and vulnerabilities (`limit` each), KEV assets. */
  openSummary(
    ctx: ServiceContext,
    scope: FigureScope,
    now: Date,
    ages: readonly AgeBoundary[],
    limit: number,
  ): Promise<OpenSummary> {
    return this.repo.openSummary(ctx.organizationId, scope, now, ages, limit);
  }

  fixedFigures(
    ctx: ServiceContext,
    scope: FigureScope,
    since: Date,
    until: Date,
  ): Promise<FixedFiguresRow[]> {
    return this.repo.fixedFigures(ctx.organizationId, scope, since, until);
  }
}
