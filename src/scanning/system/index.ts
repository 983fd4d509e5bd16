// System scans: which services answer on a host's ports, what they are, and the safe checks on
// them. No database, no HTTP: the node drives it.

export { type SystemScanOptions, type SystemScanResult, systemScan } from './engine.js';
export { BANNER_CAP, bannerLine } from './examine.js';
export { mergeNmap, type NmapService, nmapVersionArguments, readNmapServices } from './nmap.js';
export { runPorts, validateSystemTemplate } from './template.js';
