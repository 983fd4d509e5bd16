import type { ReportHost } from './types.js';

export function toReportHostDto(h: ReportHost) {
  return {
    IpAddress: h.address,
    Hostname: h.hostname,
    MacAddress: h.macAddress,
    OperatingSystem: h.osGuess,
    OpenPorts: h.openPorts,
    ClosedPorts: h.closedPorts,
    Status: h.status,
    AssetId: h.assetId,
    FirstSeen: h.firstSeenAt?.toISOString() ?? null,
    LastSeen: h.lastSeenAt?.toISOString() ?? null,
  };
}
