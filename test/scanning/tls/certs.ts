// Certificates made for a test with the openssl CLI: validity comes from this machine's clock, so
// tests read notBefore/notAfter back and set the injected clock relative to them.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  key: string;
  cert: string;
  notBefore: Date;
  notAfter: Date;
}

export function makeCertificate(options: {
  commonName: string;
  altNames?: string[];
  /** `rsa:1024`, `rsa:2048`, `ec:prime256v1`. */
  key?: string;
  days?: number;
}): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-cert-'));
  try {
    const keySpec = options.key ?? 'rsa:2048';
    const args = ['req', '-x509', '-nodes', '-sha256', '-subj', `/CN=${options.commonName}`];
    args.push(
      '-days',
      String(options.days ?? 30),
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    );
    if (keySpec.startsWith('ec:'))
      args.push('-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${keySpec.slice(3)}`);
    else args.push('-newkey', keySpec);
    if (options.altNames?.length) args.push('-addext', `subjectAltName=${options.altNames.join(',')}`);
    execFileSync('openssl', args, { stdio: 'ignore' });
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const x509 = new X509Certificate(cert);
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert,
      notBefore: x509.validFromDate,
      notAfter: x509.validToDate,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
