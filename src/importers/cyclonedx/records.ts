import { type TextLimits, textLimits } from '../common/limits.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { AssetRef, ImportRecord, ParseContext } from '../types.js';
import {
  type Affected,
  bomAsset,
  type CdxComponent,
  type CdxVulnerability,
  componentSoftware,
  vulnerabilityFindings,
} from './map.js';

/** Stands in for the asset when the BOM does not describe its subject (no metadata.component). */
const UNNAMED_BOM: AssetRef = { kind: 'CodeRepository', repository: '(unknown)' };

/**
 * Turns the parts of a BOM, in document order, into records. Vulnerabilities name the
 * components they affect by bom-ref, so every component's name, version and package URL is
 * kept by its bom-ref: memory grows with the number of components (not with the file), which
 * BOMs keep in the thousands. Components normally precede vulnerabilities; a reference to a
 * component not (yet) read is located by the reference itself, read as a package URL.
 */
export class BomRecords {
  private readonly components = new Map<string, CdxComponent>();
  private subject: CdxComponent | undefined;
  private asset: AssetRef | undefined;
  private unresolved = 0;
  private unaffected = 0;
  private readonly limits: TextLimits;

  constructor(private readonly context: ParseContext) {
    this.limits = textLimits(context);
  }

  /** metadata.component: what the BOM describes, the asset. */
  describe(subject: CdxComponent): void {
    this.subject = subject;
    this.remember(subject);
  }

  /** A component of the BOM (nested ones too): software of the asset. */
  *component(c: CdxComponent): Generator<ImportRecord> {
    this.remember(c);
    const software = componentSoftware(c, this.settleAsset());
    if (software) yield tidyRecord(software, this.limits);
  }

  /** A vulnerability; `embeddedIn` is the component that holds it (the 1.0 vulnerability extension). */
  *vulnerability(v: CdxVulnerability, embeddedIn?: CdxComponent): Generator<ImportRecord> {
    const affected: Affected[] = v.affects.map(({ ref, fixedVersion }) => {
      const component = this.components.get(ref);
      if (!component) this.unresolved += 1;
      return { ref, component, fixedVersion };
    });
    if (embeddedIn)
      affected.push({ ref: embeddedIn.bomRef ?? embeddedIn.purl ?? embeddedIn.name, component: embeddedIn });
    if (affected.length === 0) {
      this.unaffected += 1;
      return;
    }
    for (const finding of vulnerabilityFindings(v, this.settleAsset(), affected))
      yield tidyRecord(finding, this.limits);
  }

  finish(): void {
    if (this.unresolved > 0)
      this.context.warn(
        `${this.unresolved} affected references name no component of the BOM; they are located by the reference itself.`,
      );
    if (this.unaffected > 0)
      this.context.warn(
        `${this.unaffected} vulnerabilities affect no component ("affects" is empty) and were skipped.`,
      );
  }

  private remember(c: CdxComponent): void {
    if (c.bomRef) this.components.set(c.bomRef, c);
  }

  /** The asset, settled at the first record: metadata comes first in a BOM. */
  private settleAsset(): AssetRef {
    if (this.asset) return this.asset;
    this.asset = bomAsset(this.subject);
    if (!this.asset)
      this.context.warn(
        'The BOM does not describe its subject (metadata.component); its records are filed under a project named "(unknown)".',
      );
    this.asset ??= UNNAMED_BOM;
    return this.asset;
  }
}
