import type { ServiceInput } from '../../../src/intel/cpe/configuration.js';
import type { CveConfigurations } from '../../../src/intel/cpe/index.js';

/**
 * `count` synthetic CVEs over `products` products of one vendor, six CPE match entries each,
 * alternately a version range and an exact version: 10,000 CVEs make 60,000 entries. The unit
 * test holds the index to a full evaluation on them; bench:cpe times both.
 */
export function syntheticCves(count: number, products: number): CveConfigurations[] {
  return Array.from({ length: count }, (_, i) => {
    const product = `product_${i % products}`;
    const cpeMatch = [];
    for (let j = 0; j < 6; j++) {
      const minor = (i + j) % 20;
      cpeMatch.push(
        j % 2 === 0
          ? {
              criteria: `cpe:2.3:a:vendor:${product}:*:*:*:*:*:*:*:*`,
              vulnerable: true,
              versionStartIncluding: `${j}.${minor}.0`,
              versionEndExcluding: `${j}.${minor}.${(i % 9) + 1}`,
            }
          : {
              criteria: `cpe:2.3:a:vendor:${product}:${j}.${minor}.${i % 7}:*:*:*:*:*:*:*`,
              vulnerable: true,
            },
      );
    }
    return { cveId: `CVE-2099-${i}`, configurations: [{ nodes: [{ operator: 'OR' as const, cpeMatch }] }] };
  });
}

/** Service i: a product of the synthetic CVEs at a version that some of their ranges hold. */
export function syntheticService(i: number, products: number): ServiceInput {
  return { vendor: 'vendor', product: `product_${i % products}`, version: `${i % 6}.${i % 20}.${i % 5}` };
}
