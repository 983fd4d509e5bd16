/**
 * A file that cannot be read: where and why. The shared readers and the importers' parsers throw
 * this; an import fails with it, and the feed readers turn it into their own FeedError.
 */
export class ReportError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? message : `${message} (line ${line}, column ${column ?? 0})`);
    this.name = 'ReportError';
  }
}
