import { describe, expect, it } from 'vitest';
import { reflowed, withoutLayoutIndent } from '../../src/importers/common/layout-text.js';

describe('withoutLayoutIndent (preformatted text)', () => {
  it("drops the indentation the lines share, not the first line's place after its tag", () => {
    expect(withoutLayoutIndent('Header :\n\n        a\n          b\n        c\n      ')).toBe(
      'Header :\n\na\n  b\nc',
    );
  });

  it('counts the first line too when the text starts on the line after its tag', () => {
    expect(withoutLayoutIndent('\n    Supported :\n      - TLSv1.2\r\n      - TLSv1.3\n  ')).toBe(
      'Supported :\n  - TLSv1.2\n  - TLSv1.3',
    );
  });

  it('keeps one empty line of a run, and cuts trailing blanks and tabs', () => {
    expect(withoutLayoutIndent('a  \n\n\n\n\tb\t')).toBe('a\n\nb');
  });

  it('answers undefined for nothing, blanks only, or no text', () => {
    expect(withoutLayoutIndent(undefined)).toBeUndefined();
    expect(withoutLayoutIndent('')).toBeUndefined();
    expect(withoutLayoutIndent(' \n\t\r\n  ')).toBeUndefined();
  });
});

describe('reflowed (wrapped prose)', () => {
  it('joins indented lines to the line before, at any depth', () => {
    expect(reflowed('This host is missing\n  an update\n        according to KB1.')).toBe(
      'This host is missing an update according to KB1.',
    );
  });

  it('keeps list items, their wrapped continuations joined, and paragraphs', () => {
    expect(reflowed('Flaws:\n\n  - one and\n    more\n\n  - two\n  * three\n  1. four\nNext line')).toBe(
      'Flaws:\n\n- one and more\n\n- two\n* three\n1. four\nNext line',
    );
  });

  it('does not join an indented line to an empty one, and answers undefined for blanks', () => {
    expect(reflowed('a\n\n   b')).toBe('a\n\nb');
    expect(reflowed('   ')).toBeUndefined();
    expect(reflowed(undefined)).toBeUndefined();
  });
});
