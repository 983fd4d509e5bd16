/** Text made safe for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A subject line: one line, bounded (a name from an event may hold anything). */
export function subjectLine(text: string): string {
  const line = text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return line.length > 180 ? `${line.slice(0, 179)}…` : line;
}

/** The page around a message's content: inline styles only (mail clients drop style sheets). */
export function layout(title: string, content: string, footer: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    '<body style="margin:0;padding:0;background:#f4f5f7;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1a1b1e;">',
    '<div style="max-width:640px;margin:0 auto;padding:24px 16px;">',
    '<div style="font-size:13px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#495057;margin-bottom:12px;">Rampart</div>',
    '<div style="background:#ffffff;border:1px solid #dee2e6;border-radius:8px;padding:24px;">',
    content,
    '</div>',
    `<p style="font-size:12px;color:#495057;margin:16px 4px 0;line-height:1.5;">${footer}</p>`,
    '</div></body></html>',
  ].join('\n');
}

/** A button-like link (a table cell, as Outlook draws them). */
export function button(href: string, label: string): string {
  return `<p style="margin:20px 0 0;"><a href="${escapeHtml(href)}" style="display:inline-block;background:#1c7ed6;color:#ffffff;text-decoration:none;font-weight:600;padding:10px 16px;border-radius:6px;">${escapeHtml(label)}</a></p>`;
}

/** Key facts as a two-column table. */
export function factsTable(facts: [string, string][]): string {
  if (facts.length === 0) return '';
  const rows = facts
    .map(
      ([k, v]) =>
        `<tr><th scope="row" style="text-align:left;vertical-align:top;padding:4px 12px 4px 0;font-weight:600;color:#495057;white-space:nowrap;">${escapeHtml(k)}</th><td style="padding:4px 0;word-break:break-word;">${escapeHtml(v)}</td></tr>`,
    )
    .join('');
  return `<table role="presentation" style="border-collapse:collapse;font-size:14px;margin-top:12px;">${rows}</table>`;
}
