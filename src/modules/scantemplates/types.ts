import type { DiscoveryTemplate, ScanKind, SystemTemplate, WebTemplate } from '../../scanning/types.js';

/** What each kind of scan's template sets. */
export interface TemplateSettings {
  Discovery: DiscoveryTemplate;
  System: SystemTemplate;
  Web: WebTemplate;
}

interface TemplateOf<K extends ScanKind> {
  id: string;
  kind: K;
  name: string;
  description: string | null;
  builtIn: boolean;
  settings: TemplateSettings[K];
  createdAt: Date | null;
  updatedAt: Date | null;
}

/** A scan template: how a scan of its kind probes. Built-in ones belong to no organisation. */
export type ScanTemplate = TemplateOf<'Discovery'> | TemplateOf<'System'> | TemplateOf<'Web'>;

/** A template of one kind. */
export type ScanTemplateOf<K extends ScanKind> = Extract<ScanTemplate, { kind: K }>;

export type ScanTemplateInput =
  | { kind?: 'Discovery'; name: string; description?: string | null; settings: DiscoveryTemplate }
  | { kind: 'System'; name: string; description?: string | null; settings: SystemTemplate }
  | { kind: 'Web'; name: string; description?: string | null; settings: WebTemplate };
