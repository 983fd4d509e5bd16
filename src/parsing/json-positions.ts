/**
 * Where the n-th value of a JSON file starts (1-based line and column), for messages about a
 * file's shape. The tokenizer says what a value is but not where; this watches the same bytes
 * as they go to the tokenizer, keeping only the last chunks (the tokenizer is never further
 * behind than its stream buffers) and, per chunk, the scanner's state at its start. A value is
 * found on demand by scanning its chunk again from that state. Values are counted as JsonGuard
 * counts them: every string that is not a key, every object and array, every number and literal.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const SPACE = 0x20;

/** Bytes of past chunks kept: far more than the tokenizer's buffers can hold unread. */
const KEPT_BYTES = 1024 * 1024;

interface ScanState {
  inString: boolean;
  escaped: boolean;
  expectKey: boolean;
  /** Bytes of the number or literal being read (only its first starts a value). */
  tokenBytes: number;
  /** true for an object, false for an array, innermost last. */
  containers: boolean[];
  /** Values started before this point. */
  values: number;
  line: number;
  column: number;
}

interface Kept {
  bytes: Uint8Array;
  start: ScanState;
}

export class JsonPositions {
  private state: ScanState = {
    inString: false,
    escaped: false,
    expectKey: false,
    tokenBytes: 0,
    containers: [],
    values: 0,
    line: 1,
    column: 0,
  };
  private readonly kept: Kept[] = [];
  private keptBytes = 0;

  /** Reads the next chunk of the file, as the tokenizer gets it. */
  write(bytes: Uint8Array): void {
    const start = { ...this.state, containers: [...this.state.containers] };
    this.kept.push({ bytes, start });
    this.keptBytes += bytes.length;
    while (this.kept.length > 1 && this.keptBytes - this.kept[0]!.bytes.length >= KEPT_BYTES)
      this.keptBytes -= this.kept.shift()!.bytes.length;
    scan(bytes, this.state);
    advance(this.state, bytes, bytes.length);
  }

  /** Where value number `n` (1-based) starts; undefined when its chunk is no longer kept. */
  of(n: number): { line: number; column: number } | undefined {
    for (const { bytes, start } of this.kept) {
      if (start.values >= n) return undefined;
      const state = { ...start, containers: [...start.containers] };
      const index = scan(bytes, state, n);
      if (index >= 0) {
        advance(state, bytes, index + 1);
        return { line: state.line, column: state.column };
      }
    }
    return undefined;
  }
}

/** Moves the state over the chunk; answers the index of value number `stopAt` if it starts in it, else -1. */
function scan(bytes: Uint8Array, s: ScanState, stopAt = 0): number {
  const n = bytes.length;
  // Where the next backslash is (n: none left), found once per chunk and then as passed.
  let backslash = -1;
  for (let i = 0; i < n; i += 1) {
    if (s.inString) {
      if (s.escaped) {
        s.escaped = false;
        continue;
      }
      if (backslash < i) {
        backslash = bytes.indexOf(BACKSLASH, i);
        if (backslash === -1) backslash = n;
      }
      const quote = bytes.indexOf(QUOTE, i);
      const stop = Math.min(quote === -1 ? n : quote, backslash);
      if (stop === n) break;
      i = stop;
      if (bytes[i] === BACKSLASH) s.escaped = true;
      else s.inString = false;
      continue;
    }
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      s.tokenBytes = 0;
      s.inString = true;
      if (s.expectKey) {
        s.expectKey = false;
        continue;
      }
    } else if (byte === 0x7b || byte === 0x5b) {
      // { or [
      s.tokenBytes = 0;
      s.containers.push(byte === 0x7b);
      s.expectKey = byte === 0x7b;
    } else if (byte === 0x7d || byte === 0x5d) {
      // } or ]
      s.tokenBytes = 0;
      s.containers.pop();
      s.expectKey = false;
      continue;
    } else if (byte === 0x2c) {
      // ,
      s.tokenBytes = 0;
      s.expectKey = s.containers[s.containers.length - 1] === true;
      continue;
    } else if (byte === 0x3a || byte === SPACE || byte === LF || byte === CR || byte === TAB) {
      s.tokenBytes = 0;
      if (byte === 0x3a) s.expectKey = false;
      continue;
    } else {
      s.tokenBytes += 1;
      if (s.tokenBytes > 1) continue;
    }
    s.values += 1;
    if (s.values === stopAt) return i;
  }
  return -1;
}

/** Moves the line and column (in characters: UTF-8 continuation bytes do not count) over bytes[0, end). */
function advance(s: ScanState, bytes: Uint8Array, end: number): void {
  let lastLf = -1;
  for (let k = bytes.indexOf(LF); k !== -1 && k < end; k = bytes.indexOf(LF, k + 1)) {
    s.line += 1;
    lastLf = k;
  }
  if (lastLf !== -1) s.column = 0;
  let column = s.column;
  for (let k = lastLf + 1; k < end; k += 1) if ((bytes[k]! & 0xc0) !== 0x80) column += 1;
  s.column = column;
}
