import type { ServiceContext } from '../context.js';
import type {
  AgeBoundary,
  FigureScope,
  FindingFiguresRepository,
  FixedFiguresRow,
  OpenFiguresRow,
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

  openFigures(
    ctx: ServiceContext,
    scope: FigureScope,
    now: Date,
    ages: readonly AgeBoundary[],
  ): Promise<OpenFiguresRow[]> {
    return this.repo.openFigures(ctx.organizationId, scope, now, ages);
  }

  fixedFigures(
    ctx: ServiceContext,
    scope: FigureScope,
    since: Date,
    until: Date,
  ): Promise<FixedFiguresRow[]> {
    return this.repo.fixedFigures(ctx.organizationId, scope, since, until);
  }

  riskiestAssets(ctx: ServiceContext, scope: FigureScope, limit: number): Promise<RiskiestAssetRow[]> {
    return this.repo.riskiestAssets(ctx.organizationId, scope, limit);
  }

  riskiestVulnerabilities(
    ctx: ServiceContext,
    scope: FigureScope,
    limit: number,
  ): Promise<RiskiestVulnerabilityRow[]> {
    return this.repo.riskiestVulnerabilities(ctx.organizationId, scope, limit);
  }

  kevAssets(ctx: ServiceContext, scope: FigureScope): Promise<number> {
    return this.repo.kevAssets(ctx.organizationId, scope);
  }
}
