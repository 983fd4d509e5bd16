// Port scans: TCP connect probes to a list of ports on each host, with time budgets per connect,
// per host and per run. No database, no HTTP: the node drives it.

export {
  ALL_PORTS,
  isPort,
  MAX_PORT,
  MIN_PORT,
  NAMED_PORT_LISTS,
  type PortList,
  PortRange,
  parsePortList,
  portListOf,
} from './port-list.js';
export {
  type BudgetExhausted,
  CLOSED_LIST_LIMIT,
  type HostPorts,
  type PortScanOptions,
  type PortScanResult,
  scanPorts,
  validatePortScan,
} from './scanner.js';
export { WELL_KNOWN_PORTS } from './well-known.js';
