// Read by src/config.ts at start, so it imports nothing of Rampart.

/** What is wrong with an SMTP URL, as a sentence without its password; null when it is usable. */
export function smtpUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL (smtp://host:587 or smtps://host:465)';
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    return `starts with ${url.protocol.replace(/:$/, '')}://; use smtp:// (STARTTLS) or smtps:// (TLS)`;
  if (!url.hostname) return 'names no host';
  const starttls = url.searchParams.get('starttls');
  if (starttls !== null && starttls !== 'required' && starttls !== 'offered')
    return `starttls=${starttls} is neither required nor offered`;
  if (starttls !== null && url.protocol === 'smtps:')
    return 'starttls applies to smtp:// only (smtps:// is TLS from the start)';
  for (const key of url.searchParams.keys())
    if (key !== 'starttls') return `knows no parameter ${key} (only starttls)`;
  return null;
}
