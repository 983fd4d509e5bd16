import { burpImporter } from './burp/index.js';
import { csafImporter } from './csaf/index.js';
import { cyclonedxImporter } from './cyclonedx/index.js';
import { dependencyCheckImporter } from './dependency-check/index.js';
import { genericImporter } from './generic/index.js';
import { gitleaksImporter } from './gitleaks/index.js';
import { grypeImporter } from './grype/index.js';
import { masscanImporter } from './masscan/index.js';
import { nessusImporter } from './nessus/index.js';
import { niktoImporter } from './nikto/index.js';
import { nmapImporter } from './nmap/index.js';
import { npmAuditImporter } from './npm-audit/index.js';
import { nucleiImporter } from './nuclei/index.js';
import { openvasImporter } from './openvas/index.js';
import { openvexImporter } from './openvex/index.js';
import { osvScannerImporter } from './osv-scanner/index.js';
import { qualysImporter } from './qualys/index.js';
import { ImporterRegistry } from './registry.js';
import { sarifImporter } from './sarif/index.js';
import { semgrepImporter } from './semgrep/index.js';
import { snykImporter } from './snyk/index.js';
import { spdxImporter } from './spdx/index.js';
import { sslscanImporter } from './sslscan/index.js';
import { testsslImporter } from './testssl/index.js';
import { trivyImporter } from './trivy/index.js';
import type { Importer } from './types.js';
import { wapitiImporter } from './wapiti/index.js';
import { zapImporter } from './zap/index.js';

/** Every format Rampart reads, in the order `GET /imports/formats` lists them. */
export const IMPORTERS: readonly Importer[] = [
  nessusImporter,
  openvasImporter,
  qualysImporter,
  nmapImporter,
  masscanImporter,
  zapImporter,
  burpImporter,
  niktoImporter,
  wapitiImporter,
  nucleiImporter,
  testsslImporter,
  sslscanImporter,
  trivyImporter,
  grypeImporter,
  osvScannerImporter,
  snykImporter,
  cyclonedxImporter,
  openvexImporter,
  csafImporter,
  spdxImporter,
  dependencyCheckImporter,
  npmAuditImporter,
  sarifImporter,
  semgrepImporter,
  gitleaksImporter,
  genericImporter,
];

export function defaultRegistry(): ImporterRegistry {
  return new ImporterRegistry(IMPORTERS);
}
