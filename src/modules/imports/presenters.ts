import { isoOrNull } from '../../http/dto.js';
import { attentionOf, type ImportService } from './service.js';
import type { Import } from './types.js';

// How imports look on the wire (the API and the CLI's --json).

export const toImportDto = (r: Import) => ({
  Id: r.id,
  State: r.state,
  Format: r.format,
  FormatConfidence: r.formatConfidence,
  ScopeName: r.scopeName,
  FileName: r.fileName,
  FileSha256: r.fileSha256,
  FileSize: r.fileSize,
  SameFileAs: r.sameFileAs && { Id: r.sameFileAs.id, CreatedAt: r.sameFileAs.createdAt.toISOString() },
  Counts: r.counts,
  Warnings: r.warnings,
  Attention: attentionOf(r.state, r.counts),
  Error: r.error,
  CreatedAt: r.createdAt.toISOString(),
  StartedAt: isoOrNull(r.startedAt),
  FinishedAt: isoOrNull(r.finishedAt),
  DurationMs: r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
});

export const toFormatDto = (i: ReturnType<ImportService['formats']>[number]) => ({
  Format: i.format,
  Label: i.label,
  Tool: i.tool,
});
