import { checkById, checkGuid } from '../../scanning/checks/index.js';
import { toRunSummaryDto } from '../savedscans/presenters.js';
import type { WebRunReport } from './types.js';

export function toWebRunReportDto(r: WebRunReport) {
  const o = r.outcome;
  return {
    Run: toRunSummaryDto(r.run),
    Verify: o?.verifyFindingIds ? { FindingIds: o.verifyFindingIds } : null,
    Urls: r.urls.map((u) => ({
      Url: u.url,
      FinalUrl: u.finalUrl,
      Status: u.status,
      Address: u.address,
      Checks: u.checks.map((c) => {
        const definition = checkById(c.checkId);
        return {
          CheckId: c.checkId,
          Title: definition?.title ?? c.checkId,
          Severity: definition?.severity ?? 'Info',
          PluginGuidId: checkGuid(c.checkId),
          Url: c.url,
          Evidence: c.evidence,
        };
      }),
      HeaderScore: u.headerScore ? { Score: u.headerScore.score, Grade: u.headerScore.grade } : null,
      Notes: u.notes,
      Software: u.software.map((s) => ({
        Header: s.header,
        Value: s.value,
        Product: s.product,
        Version: s.version,
        Cpes: s.cpes,
      })),
      Error: u.error,
      BudgetExhausted: u.budgetExhausted,
    })),
    Import: o?.importId ? { Id: o.importId, Counts: o.counts ?? {} } : null,
    IngestError: o?.ingestError ?? null,
  };
}
