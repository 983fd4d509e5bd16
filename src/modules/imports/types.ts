/** A report's import: what was submitted, how far it got and what it did. */
export interface Import {
  id: string;
  state: ImportState;
  format: string | null;
  /** How sure the detection was (0–1); 1 when the format was named. */
  formatConfidence: number | null;
  scopeName: string | null;
  fileName: string | null;
  fileSha256: string;
  fileSize: number;
  actorType: string;
  actorId: string | null;
  counts: ImportCounts;
  warnings: string[];
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** The latest earlier import of the organisation whose upload had the same SHA-256, if any. */
  sameFileAs: { id: string; createdAt: Date } | null;
}

export type ImportState = 'Queued' | 'Running' | 'Completed' | 'Failed';

export type ImportCounts = Record<string, number>;
