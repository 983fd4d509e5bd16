import type { DiscoveryTemplate, SystemTemplate, WebTemplate } from '../../scanning/types.js';
import type { ScanTemplate } from './types.js';

/** The port-scan settings discovery and system templates share: ports (each kind its own way), timing and rates. */
type PortScan<P> = Pick<
  SystemTemplate,
  'timeoutMs' | 'retries' | 'maxInFlight' | 'connectionsPerSecond' | 'perHostInFlight'
> & { ports: P };

const toPortScanDto = <P>(s: PortScan<P>) => ({
  Ports: s.ports,
  TimeoutMs: s.timeoutMs,
  Retries: s.retries,
  MaxInFlight: s.maxInFlight,
  ConnectionsPerSecond: s.connectionsPerSecond,
  PerHostInFlight: s.perHostInFlight,
});

const portScanFromDto = <P>(s: ReturnType<typeof toPortScanDto<P>>): PortScan<P> => ({
  ports: s.Ports,
  timeoutMs: s.TimeoutMs,
  retries: s.Retries,
  maxInFlight: s.MaxInFlight,
  connectionsPerSecond: s.ConnectionsPerSecond,
  perHostInFlight: s.PerHostInFlight,
});

export function toSystemSettingsDto(s: SystemTemplate) {
  return {
    ...toPortScanDto(s),
    PortBudgetMs: s.portBudgetMs,
    HostBudgetMs: s.hostBudgetMs,
    RunBudgetMs: s.runBudgetMs,
    ServiceDetection: s.serviceDetection,
    TlsChecks: s.tlsChecks,
    SafeChecks: s.safeChecks,
    UseNmapVersionDetection: s.useNmapVersionDetection,
  };
}

export function toWebSettingsDto(s: WebTemplate) {
  return {
    RequestTimeoutMs: s.requestTimeoutMs,
    UrlBudgetMs: s.urlBudgetMs,
    RunBudgetMs: s.runBudgetMs,
    RequestsPerSecond: s.requestsPerSecond,
    TlsChecks: s.tlsChecks,
    HeaderChecks: s.headerChecks,
    ExposedFiles: s.exposedFiles,
  };
}

function settingsDtoOf(t: ScanTemplate) {
  if (t.kind === 'System') return toSystemSettingsDto(t.settings);
  if (t.kind === 'Web') return toWebSettingsDto(t.settings);
  return toSettingsDto(t.settings);
}

export function toSettingsDto(s: DiscoveryTemplate) {
  return {
    ...toPortScanDto(s),
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
    Settings: settingsDtoOf(t),
    CreatedAt: t.createdAt?.toISOString() ?? null,
    UpdatedAt: t.updatedAt?.toISOString() ?? null,
  };
}

/** The wire settings as the engine takes them. */
export function settingsFromDto(s: ReturnType<typeof toSettingsDto>): DiscoveryTemplate {
  return {
    ...portScanFromDto(s),
    reverseDns: s.ReverseDns,
    useNmap: s.UseNmap,
  };
}

export function systemSettingsFromDto(s: ReturnType<typeof toSystemSettingsDto>): SystemTemplate {
  return {
    ...portScanFromDto(s),
    portBudgetMs: s.PortBudgetMs,
    hostBudgetMs: s.HostBudgetMs,
    runBudgetMs: s.RunBudgetMs,
    serviceDetection: s.ServiceDetection,
    tlsChecks: s.TlsChecks,
    safeChecks: s.SafeChecks,
    useNmapVersionDetection: s.UseNmapVersionDetection,
  };
}

export function webSettingsFromDto(s: ReturnType<typeof toWebSettingsDto>): WebTemplate {
  return {
    requestTimeoutMs: s.RequestTimeoutMs,
    urlBudgetMs: s.UrlBudgetMs,
    runBudgetMs: s.RunBudgetMs,
    requestsPerSecond: s.RequestsPerSecond,
    tlsChecks: s.TlsChecks,
    headerChecks: s.HeaderChecks,
    exposedFiles: s.ExposedFiles,
  };
}
