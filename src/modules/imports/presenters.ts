import type { ImportRow } from './repository.js';
import { attentionOf, type ImportService } from './service.js';

// How imports look on the wire (the API and the CLI's --json).

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toImportDto = (r: ImportRow) => ({
  Id: r.id,
  State: r.state,
  Format: r.format,
  FormatConfidence: r.format_confidence === null ? null : Number(r.format_confidence),
  ScopeName: r.scope_name,
  FileName: r.file_name,
  FileSha256: r.file_sha256,
  FileSize: Number(r.file_size),
  Counts: r.counts,
  Warnings: r.warnings,
  Attention: attentionOf(r.state, r.counts),
  Error: r.error,
  CreatedAt: r.created_at.toISOString(),
  StartedAt: iso(r.started_at),
  FinishedAt: iso(r.finished_at),
  DurationMs: r.started_at && r.finished_at ? r.finished_at.getTime() - r.started_at.getTime() : null,
});

export const toFormatDto = (i: ReturnType<ImportService['formats']>[number]) => ({
  Format: i.format,
  Label: i.label,
  Tool: i.tool,
});
