import type { Importer } from './types.js';

/** Below this, detection does not claim a file. */
export const DETECTION_THRESHOLD = 0.5;

export interface Detection {
  importer: Importer;
  confidence: number;
}

/** The formats Rampart reads, found by name or by a file's first bytes. */
export class ImporterRegistry {
  constructor(private readonly importers: readonly Importer[]) {
    const names = new Set<string>();
    for (const i of importers) {
      if (names.has(i.format)) throw new Error(`Two importers claim the format ${i.format}`);
      names.add(i.format);
    }
  }

  all(): readonly Importer[] {
    return this.importers;
  }

  byFormat(format: string): Importer | undefined {
    const wanted = format.trim().toLowerCase();
    return this.importers.find((i) => i.format === wanted);
  }

  /** The most confident importer for a file that starts with `head`, if any is confident enough. */
  detect(head: string): Detection | undefined {
    let best: Detection | undefined;
    for (const importer of this.importers) {
      let confidence = 0;
      try {
        confidence = importer.detect(head);
      } catch {
        confidence = 0;
      }
      if (!best || confidence > best.confidence) best = { importer, confidence };
    }
    return best && best.confidence >= DETECTION_THRESHOLD ? best : undefined;
  }
}
