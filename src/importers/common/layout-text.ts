/**
 * Texts of XML reports without the whitespace the file's layout added to them. A report that is
 * pretty-printed indents the lines of an element's text as deep as the element
 * ("…remote web\n                    server is prior to…" in a .nessus file), and OpenVAS wraps its
 * NVT texts with an indentation that means "this line goes on the one before". What a reader
 * needs is kept: line breaks and paragraphs, list items, and in preformatted text (a plugin's
 * output) the indentation of some lines relative to the others.
 */

/** A list item: "- …", "* …", "• …", "1. …" or "a) …". */
const LIST_ITEM = /^(?:[-*•]|\d+[.)]|[a-z][.)])\s/;

/** The lines of a text, line endings unified, trailing blanks cut, blank lines at either end gone. */
function linesOf(text: string): { lines: string[]; startedOnNewLine: boolean } {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''));
  // Text that starts on the line after its opening tag is indented on every line, the first too.
  let startedOnNewLine = false;
  while (lines.length > 0 && lines[0] === '') {
    lines.shift();
    startedOnNewLine = true;
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return { lines, startedOnNewLine };
}

/** Runs of empty lines become one: a paragraph break. */
function joined(lines: string[]): string | undefined {
  return lines.join('\n').replace(/\n{3,}/g, '\n\n') || undefined;
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length;

/**
 * Preformatted text (Nessus's descriptions and plugin output): the indentation every line shares
 * is the layout's and goes; line breaks, paragraphs and the indentation of some lines relative to
 * the others stay. The first line, when it follows its opening tag, has none of the layout's
 * indentation and does not count.
 */
export function withoutLayoutIndent(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const { lines, startedOnNewLine } = linesOf(text);
  if (lines.length === 0) return undefined;
  const counted = (startedOnNewLine ? lines : lines.slice(1)).filter((line) => line !== '');
  const shared = counted.length > 0 ? Math.min(...counted.map(indentOf)) : 0;
  return joined(
    lines.map((line, i) => (i === 0 && !startedOnNewLine ? line.trimStart() : line.slice(shared))),
  );
}

/**
 * Wrapped prose (OpenVAS's NVT texts): a line indented deeper than nothing continues the line
 * before and joins it with one space, whatever the depth (OpenVAS wraps with two spaces, a list
 * item's continuation with four, a pretty-printed file adds its own); list items and paragraphs
 * stay, each on its own line, without indentation.
 */
export function reflowed(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const out: string[] = [];
  for (const line of linesOf(text).lines) {
    const content = line.trimStart();
    const previous = out.length > 0 ? out[out.length - 1]! : '';
    if (content !== line && previous !== '' && !LIST_ITEM.test(content))
      out[out.length - 1] = `${previous} ${content}`;
    else out.push(content);
  }
  return joined(out);
}
