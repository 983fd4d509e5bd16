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

  /**
   * The same error from its fields (`message` with its location already in it), as it arrives
   * from an import's parser thread: errors cross threads without their class and fields.
   */
  static revive(fields: { message: string; line?: number; column?: number }): ReportError {
    const error = new ReportError(fields.message);
    Object.defineProperties(error, {
      line: { value: fields.line, enumerable: true },
      column: { value: fields.column, enumerable: true },
    });
    return error;
  }
}
