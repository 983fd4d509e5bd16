import { checkById } from '../../scanning/checks/index.js';
import { toRunSummaryDto } from '../savedscans/presenters.js';
import type { SystemRunReport } from './types.js';

export function toSystemRunReportDto(r: SystemRunReport) {
  const record = r.record;
  return {
    Run: toRunSummaryDto(r.run),
    Verify: record?.verifyFindingIds ? { FindingIds: record.verifyFindingIds } : null,
    Ports: record?.ports ?? '',
    Hosts: r.hosts.map((h) => ({
      IpAddress: h.address,
      Hostname: h.hostname,
      Answered: h.answered !== false,
      OpenPorts: h.openPorts,
      UnscannedPorts: h.unscannedPorts,
      BudgetExhausted: h.budgetExhausted,
      Services: h.services.map((s) => ({
        Port: s.port,
        Service: s.service,
        Product: s.product,
        Version: s.version,
        Cpes: s.cpes,
        Banner: s.banner,
        Tls: s.tls,
        DetectedBy: s.detectedBy,
      })),
      Checks: h.checks.map((c) => ({
        CheckId: c.checkId,
        Title: checkById(c.checkId)?.title ?? c.checkId,
        Severity: checkById(c.checkId)?.severity ?? 'Info',
        Port: c.port,
        Evidence: c.evidence,
      })),
    })),
    Backports: (record?.backports ?? []).map((b) => ({
      IpAddress: b.address,
      Port: b.port,
      Banner: b.banner,
      Cve: b.cveId,
      Status: b.status,
      Evidence: b.evidence,
    })),
    Import: record?.importId ? { Id: record.importId, Counts: record.counts ?? {} } : null,
    IngestError: record?.ingestError ?? null,
  };
}
