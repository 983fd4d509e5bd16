/**
 * The web scan engine: TLS, HTTP→HTTPS, security headers scored as Mozilla's HTTP Observatory
 * scores them, software named in headers, exposed files against a soft-404 baseline.
 */

export { MAX_REDIRECTS, type WebScanCounts, type WebScanOptions, webScan } from './engine.js';
export { EXPOSED_PROBES, isDirectoryListing } from './exposed.js';
export { MAX_BODY_BYTES, MAX_HEADER_BYTES } from './http.js';
export { gradeOf, type Modifier, type Score, scoreHeaders } from './observatory.js';
export { parseScanUrl, type ScanUrl, validateWebTemplate } from './template.js';
