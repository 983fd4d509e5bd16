import type { Import, ImportFormat } from '../../api/imports';

/** What to call an import: its file name, else (the CLI may send none) its format and day. */
export function importName(item: Pick<Import, 'FileName' | 'Format'>): string {
  return item.FileName || `${item.Format ?? 'Unnamed'} report`;
}

const units = ['KB', 'MB', 'GB'] as const;

/** 1,234 B · 12.3 KB · 4.5 MB */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString()} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toLocaleString(undefined, { maximumFractionDigits: value < 10 ? 1 : 0 })} ${units[unit]}`;
}

/** 420 ms · 3.2 s · 2 min 5 s */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toLocaleString(undefined, { maximumFractionDigits: 1 })} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** The tool a format comes from ("Nessus") where the server names it, else the format's id. */
export function toolName(format: string | null, formats: readonly ImportFormat[] | undefined): string {
  if (!format) return '—';
  return formats?.find((f) => f.Format === format)?.Tool ?? format;
}
