import type { DiscoveryTemplate, ScanKind } from '../../scanning/types.js';

/** A scan template: how a scan of its kind probes. Built-in ones belong to no organisation. */
export interface ScanTemplate {
  id: string;
  kind: ScanKind;
  name: string;
  description: string | null;
  builtIn: boolean;
  settings: DiscoveryTemplate;
  createdAt: Date | null;
  updatedAt: Date | null;
}

export interface ScanTemplateInput {
  name: string;
  description?: string | null;
  settings: DiscoveryTemplate;
}
