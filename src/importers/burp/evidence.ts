import { child, children, childText, type XmlElement } from '../../parsing/xml.js';
import { htmlToText } from '../common/html-text.js';

/**
 * The text of a `<request>` or `<response>`, at most `maxChars` characters. Burp stores them in
 * base64 (`base64="true"`); only the part that can fit is decoded, so a multi-megabyte response
 * costs no more than its excerpt. Binary bytes become U+FFFD or are dropped (control codes).
 */
export function messageText(element: XmlElement | undefined, maxChars: number): string {
  if (!element) return '';
  let text: string;
  if (element.attributes.base64 === 'true') {
    // Every 4 base64 characters are 3 bytes, and a character takes at least one byte.
    const needed = Math.ceil(maxChars / 3) * 4 + 4;
    const base64 = element.text
      .slice(0, needed * 2)
      .replace(/\s+/g, '')
      .slice(0, needed);
    text = Buffer.from(base64, 'base64').toString('utf8');
  } else text = element.text;
  return (
    text
      .slice(0, maxChars)
      .replace(/\r\n?/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control codes are what it removes
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
  );
}

function exchanges(issue: XmlElement, maxChars: number): string[] {
  const parts: string[] = [];
  const pairs = children(issue, 'requestresponse');
  pairs.forEach((pair, index) => {
    const label = pairs.length > 1 ? ` ${index + 1}` : '';
    const request = messageText(child(pair, 'request'), maxChars).trim();
    const response = messageText(child(pair, 'response'), maxChars).trim();
    if (request) parts.push(`Request${label}:\n${request}`);
    if (response) parts.push(`Response${label}:\n${response}`);
    if (childText(pair, 'responseRedirected') === 'true') parts.push(`Response${label} was redirected.`);
  });
  return parts;
}

/** "Collaborator DNS interaction from 18.192.172.30 at 2021-Apr-28 08:43:47 UTC". */
function collaboratorEvents(issue: XmlElement): string[] {
  return children(issue, 'collaboratorEvent').map((event) => {
    const kind = childText(event, 'interactionType') ?? 'an';
    const origin = childText(event, 'originIp');
    const time = childText(event, 'time');
    const lookup = childText(event, 'lookupHost');
    return [
      `Collaborator ${kind} interaction`,
      origin ? ` from ${origin}` : '',
      time ? ` at ${time}` : '',
      lookup ? ` (lookup of ${lookup})` : '',
    ].join('');
  });
}

/**
 * What Burp saw for this issue: its detail, detail items, confidence, the request/response pairs
 * (decoded) and Collaborator interactions. Each part is read at most `maxChars` long; the caller
 * cuts the whole.
 */
export function issueEvidence(issue: XmlElement, maxChars: number): string {
  const detail = htmlToText(childText(issue, 'issueDetail') ?? '');
  const items = children(child(issue, 'issueDetailItems') ?? issue, 'issueDetailItem')
    .map((item) => `- ${htmlToText(item.text)}`)
    .join('\n');
  const confidence = childText(issue, 'confidence');
  return [
    detail,
    items,
    confidence ? `Confidence: ${confidence}` : '',
    ...collaboratorEvents(issue),
    ...exchanges(issue, maxChars),
  ]
    .filter(Boolean)
    .join('\n\n');
}
