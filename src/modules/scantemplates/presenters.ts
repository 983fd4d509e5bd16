import type { DiscoveryTemplate } from '../../scanning/types.js';
import type { ScanTemplate } from './types.js';

export function toSettingsDto(s: DiscoveryTemplate) {
  return {
    Ports: s.ports,
    TimeoutMs: s.timeoutMs,
    Retries: s.retries,
    MaxInFlight: s.maxInFlight,
    ConnectionsPerSecond: s.connectionsPerSecond,
    PerHostInFlight: s.perHostInFlight,
    ReverseDns: s.reverseDns,
    UseNmap: s.useNmap,
  };
}

export function toScanTemplateDto(t: ScanTemplate) {
  return {
    Id: t.id,
    Kind: t.kind,
    Name: t.name,
    Description: t.description,
    BuiltIn: t.builtIn,
    Settings: toSettingsDto(t.settings),
    CreatedAt: t.createdAt?.toISOString() ?? null,
    UpdatedAt: t.updatedAt?.toISOString() ?? null,
  };
}

/** The wire settings as the engine takes them. */
export function settingsFromDto(s: ReturnType<typeof toSettingsDto>): DiscoveryTemplate {
  return {
    ports: s.Ports,
    timeoutMs: s.TimeoutMs,
    retries: s.Retries,
    maxInFlight: s.MaxInFlight,
    connectionsPerSecond: s.ConnectionsPerSecond,
    perHostInFlight: s.PerHostInFlight,
    reverseDns: s.ReverseDns,
    useNmap: s.UseNmap,
  };
}
