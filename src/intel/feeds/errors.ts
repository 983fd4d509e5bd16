/**
 * A feed file that cannot be read: why, and where when known (1-based line and column). Readers
 * throw this for files that are malformed or are not the feed they were asked to read; a record
 * that is merely incomplete is skipped with a warning instead.
 */
export class FeedError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? message : `${message} (line ${line}, column ${column ?? 0})`);
    this.name = 'FeedError';
  }
}
