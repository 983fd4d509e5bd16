import { burpImporter } from './burp/index.js';
import { cyclonedxImporter } from './cyclonedx/index.js';
import { genericImporter } from './generic/index.js';
import { grypeImporter } from './grype/index.js';
import { nessusImporter } from './nessus/index.js';
import { nmapImporter } from './nmap/index.js';
import { nucleiImporter } from './nuclei/index.js';
import { openvasImporter } from './openvas/index.js';
import { osvScannerImporter } from './osv-scanner/index.js';
import { qualysImporter } from './qualys/index.js';
import { ImporterRegistry } from './registry.js';
import { sarifImporter } from './sarif/index.js';
import { trivyImporter } from './trivy/index.js';
import type { Importer } from './types.js';
import { zapImporter } from './zap/index.js';

/** Every format Rampart reads, in the order `GET /imports/formats` lists them. */
export const IMPORTERS: readonly Importer[] = [
  nessusImporter,
  openvasImporter,
  qualysImporter,
  nmapImporter,
  zapImporter,
  burpImporter,
  nucleiImporter,
  trivyImporter,
  grypeImporter,
  osvScannerImporter,
  cyclonedxImporter,
  sarifImporter,
  genericImporter,
];

export function defaultRegistry(): ImporterRegistry {
  return new ImporterRegistry(IMPORTERS);
}
