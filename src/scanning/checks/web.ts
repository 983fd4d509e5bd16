import type { CheckDefinition } from './types.js';

const exposed = (
  id: string,
  title: string,
  severity: CheckDefinition['severity'],
  description: string,
  solution: string,
): CheckDefinition => ({
  id,
  scan: 'Web',
  title,
  severity,
  category: 'Information disclosure',
  description,
  solution,
  references: ['https://owasp.org/www-project-web-security-testing-guide/'],
  cweIds: ['CWE-538'],
});

const header = (id: string, title: string, description: string, solution: string): CheckDefinition => ({
  id,
  scan: 'Web',
  title,
  severity: 'Low',
  category: 'Configuration',
  description,
  solution,
  references: ['https://developer.mozilla.org/en-US/observatory/docs/tests_and_scoring'],
  cweIds: ['CWE-693'],
});

/** Checks of web scans on the URLs they are given. */
export const WEB_CHECKS: CheckDefinition[] = [
  {
    id: 'web.no-https-redirect',
    scan: 'Web',
    title: 'HTTP does not redirect to HTTPS',
    severity: 'Low',
    category: 'Encryption',
    description: 'The site answers over plain HTTP without redirecting to HTTPS.',
    solution: 'Redirect every HTTP request to the same URL over HTTPS, then send Strict-Transport-Security.',
    references: ['https://developer.mozilla.org/en-US/observatory/docs/tests_and_scoring'],
    cweIds: ['CWE-319'],
  },
  header(
    'web.header-csp',
    'Content-Security-Policy missing or unsafe',
    'No Content-Security-Policy, or one allowing unsafe-inline scripts: a script injection runs unhindered.',
    "Send a Content-Security-Policy with at least `default-src 'self'` and no `'unsafe-inline'` in script-src.",
  ),
  header(
    'web.header-hsts',
    'Strict-Transport-Security missing or too short',
    'An HTTPS site without Strict-Transport-Security (or with max-age under six months) can be downgraded to HTTP.',
    'Send `Strict-Transport-Security: max-age=63072000` on HTTPS answers.',
  ),
  header(
    'web.header-x-content-type-options',
    'X-Content-Type-Options missing',
    'Without `X-Content-Type-Options: nosniff` browsers may run a file of another type as script.',
    'Send `X-Content-Type-Options: nosniff`.',
  ),
  header(
    'web.header-x-frame-options',
    'Clickjacking protection missing',
    'Neither X-Frame-Options nor a CSP frame-ancestors directive stops other sites from framing this one.',
    "Send `X-Frame-Options: DENY` or CSP `frame-ancestors 'none'`.",
  ),
  header(
    'web.header-referrer-policy',
    'Referrer-Policy missing or unsafe',
    'Without a Referrer-Policy (or with unsafe-url) full URLs leak to other sites.',
    'Send `Referrer-Policy: strict-origin-when-cross-origin` or stricter.',
  ),
  {
    id: 'web.cookie-flags',
    scan: 'Web',
    title: 'Cookie without Secure, HttpOnly or SameSite',
    severity: 'Low',
    category: 'Configuration',
    description: 'A cookie is set without the Secure flag on HTTPS, without HttpOnly, or without SameSite.',
    solution: 'Set session cookies with `Secure; HttpOnly; SameSite=Lax` (or Strict).',
    references: ['https://developer.mozilla.org/en-US/docs/Web/HTTP/Cookies#security'],
    cweIds: ['CWE-614', 'CWE-1004'],
  },
  exposed(
    'web.exposed-git',
    'Git repository exposed (.git/HEAD)',
    'High',
    'The site serves its `.git` directory: the whole source history, and often credentials, can be downloaded.',
    'Deny access to `.git` (nginx: `location ~ /\\.git { deny all; }`) and keep repositories out of the web root.',
  ),
  exposed(
    'web.exposed-env',
    'Environment file exposed (.env)',
    'High',
    'The site serves a `.env` file, which usually holds database passwords and API keys.',
    'Remove `.env` from the web root, deny dotfiles, and rotate every secret it held.',
  ),
  exposed(
    'web.exposed-server-status',
    'Server status page exposed',
    'Medium',
    'The server status page (Apache `server-status`, nginx `stub_status`) is public: it shows clients, URLs and load.',
    'Restrict the status page to trusted addresses.',
  ),
  exposed(
    'web.exposed-backup',
    'Backup or archive file exposed',
    'High',
    'An archive or backup file (`backup.zip`, `*.sql`, `*.tar.gz`, `*.bak`) can be downloaded from the site.',
    'Remove backups from the web root.',
  ),
  exposed(
    'web.exposed-phpinfo',
    'phpinfo() page exposed',
    'Medium',
    'A phpinfo page shows the PHP configuration, paths, modules and environment variables.',
    'Remove the phpinfo page.',
  ),
  exposed(
    'web.directory-listing',
    'Directory listing enabled',
    'Low',
    'The server lists the files of a directory that has no index page.',
    'Turn directory listings off (nginx `autoindex off;`, Apache `Options -Indexes`).',
  ),
];
