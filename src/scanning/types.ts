// How the server, the scan nodes and the scan engines meet. What a run asks for and what it
// reports are the contract's (contract.ts, TypeBox schemas both ends check against); this file
// names them for the engines and adds how an engine is driven.

import type { REFUSAL_RULES, ScanKind, ScanSpec, ScanSpecs } from './contract.js';

export {
  type CheckResult,
  type DiscoveredHost,
  type DiscoverySpec,
  type DiscoveryTemplate,
  type RefusedAddress,
  refusedAddressOf,
  SCAN_KINDS,
  type ScanKind,
  type ScannedService,
  type ScanSpec,
  type ScanSpecs,
  type ScanTarget,
  type SystemHostResult,
  type SystemSpec,
  type SystemTemplate,
  type TargetPolicy,
  type WebSoftware,
  type WebSpec,
  type WebTemplate,
  type WebUrlResult,
} from './contract.js';

/** Why an address or a target was refused: the rule, and a sentence naming the target. */
export interface TargetRefusal {
  rule: (typeof REFUSAL_RULES)[number];
  message: string;
}

/** Where a run is: addresses done of all, and hosts found so far. */
export interface ScanProgress {
  done: number;
  total: number;
  found: number;
}

/** What a node hands an engine for one run. */
export interface RunContext {
  /** Aborts when the run is stopped or its lease is lost: the engine stops sending at once. */
  signal: AbortSignal;
  /** Results, in order; the node batches them to the server. */
  emit(items: unknown[]): Promise<void>;
  progress(progress: ScanProgress): void;
  log(message: string, details?: Record<string, unknown>): void;
}

/**
 * Runs one scan of kind K with the spec its node checked against the contract. Resolves when
 * done; throws to fail the run with the message.
 */
export type RunExecutorOf<K extends ScanKind> = (spec: ScanSpecs[K], context: RunContext) => Promise<void>;

/**
 * An engine as a node holds it beside the others, by kind: the node hands each only a spec of its
 * own kind, checked (so the parameter is read as any kind's spec, and each kind's executor fits).
 */
export type RunExecutor = {
  run(spec: ScanSpec, context: RunContext): Promise<void>;
}['run'];
