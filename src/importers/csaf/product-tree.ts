import { type JsonPath, pathText } from '../../parsing/json.js';
import { asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { packageOf, productAsset } from '../openvex/product.js';
import type { AssetRef, LocationRef, ParseContext } from '../types.js';

/**
 * A CSAF product_tree, indexed by product id as it streams past, so the vulnerabilities that
 * follow it (CSAF writes product_tree before vulnerabilities) can name products by id.
 *
 * A product id is defined in one of three places, often all at once: `full_product_names[]`
 * (id and name), a leaf of the `branches` tree (whose ancestors give vendor, product name and
 * version — the only place CSAF states a version), and `relationships[]` ("A as a component of
 * B", a new id). `product_groups[]` name sets of ids that remediations and flags refer to.
 *
 * Memory: one entry per product, relationship and group member, at most MAX_TREE_ENTRIES; past
 * that, later products are not indexed (with a warning) and findings on them are located by the
 * product id itself. The branches are streamed by their scalar fields, never read whole: a vendor
 * branch can hold the whole tree.
 */
export const MAX_TREE_ENTRIES = 100_000;

/** Branches nested deeper than this are not read (the schema sets no limit; real trees use ~5). */
const MAX_BRANCH_DEPTH = 32;

interface Product {
  fullName?: string;
  /** The nearest `product_name` branch: the product without its version. */
  productName?: string;
  /** The nearest `product_version` branch. */
  version?: string;
  purl?: string;
}

interface Relationship {
  component: string;
  parent: string;
  category?: string;
  fullName?: string;
}

interface BranchLevel {
  /** The branch's position ("0.2.1"): a new position means a new branch at this depth. */
  at: string;
  category?: string;
  name?: string;
}

/** Where a finding on a product is: the asset it belongs to and the package it is. */
export interface ProductTarget {
  asset: AssetRef;
  location: LocationRef;
  /** The product as people read it, for evidence: "Generic App 1.0.0". */
  label: string;
}

/** The index positions of a branches path, or undefined when the path is not inside branches. */
function branchPositions(path: JsonPath): number[] | undefined {
  if (path.length < 4 || path.length % 2 !== 0 || path.length > 2 * MAX_BRANCH_DEPTH + 2) return undefined;
  if (path[0] !== 'product_tree' || path[1] !== 'branches') return undefined;
  const positions: number[] = [];
  for (let i = 2; i < path.length - 1; i += 2) {
    if (typeof path[i] !== 'number') return undefined;
    if (i + 1 < path.length - 1 && path[i + 1] !== 'branches') return undefined;
    positions.push(path[i] as number);
  }
  return positions;
}

const BRANCH_FIELDS = new Set(['category', 'name', 'product']);
const LISTS = new Set(['full_product_names', 'relationships', 'product_groups']);

export class ProductTree {
  private readonly products = new Map<string, Product>();
  private readonly relationships = new Map<string, Relationship>();
  private readonly groups = new Map<string, string[]>();
  private readonly branches: BranchLevel[] = [];
  private entries = 0;
  private dropped = 0;
  private unresolved = 0;

  constructor(
    private readonly context: ParseContext,
    private readonly maxEntries = MAX_TREE_ENTRIES,
  ) {}

  /** True for the parts of product_tree the index reads, each picked on its own. */
  static picks(path: JsonPath): boolean {
    if (path.length === 3 && path[0] === 'product_tree')
      return LISTS.has(path[1] as string) && typeof path[2] === 'number';
    return branchPositions(path) !== undefined && BRANCH_FIELDS.has(path[path.length - 1] as string);
  }

  take(path: JsonPath, value: unknown): void {
    const list = path.length === 3 ? path[1] : undefined;
    if (list === 'full_product_names') this.addProduct(asObject(value), {});
    else if (list === 'relationships') this.addRelationship(asObject(value));
    else if (list === 'product_groups') this.addGroup(asObject(value));
    else this.branchField(path, value);
  }

  /** The product ids a list of group ids stands for. */
  members(groupIds: string[]): string[] {
    return groupIds.flatMap((g) => this.groups.get(g) ?? []);
  }

  /**
   * A product as a finding's asset and location. A relationship ("library as a component of
   * app") is the component, located in the parent's asset; any other product is its own asset
   * (by name, without version) and the package it is (name and version).
   */
  target(id: string, fallback: () => AssetRef): ProductTarget {
    const relationship = this.relationships.get(id);
    if (relationship) {
      const component = this.location(relationship.component);
      return {
        asset: this.parentAsset(relationship.parent) ?? fallback(),
        location: component ?? { kind: 'Package', packageName: relationship.fullName ?? id },
        label:
          relationship.fullName ??
          `${relationship.component} ${relationship.category} ${relationship.parent}`,
      };
    }
    const product = this.products.get(id);
    if (!product) {
      this.unresolved += 1;
      return { asset: fallback(), location: { kind: 'Package', packageName: id }, label: id };
    }
    return { asset: this.assetOf(product, id), location: this.location(id)!, label: product.fullName ?? id };
  }

  finish(): void {
    if (this.dropped > 0)
      this.context.warn(
        `The product tree defines more than ${this.maxEntries} products; ${this.dropped} were not indexed and findings on them are located by their product id.`,
      );
    if (this.unresolved > 0)
      this.context.warn(
        `${this.unresolved} product statuses name a product id the product tree does not define; they are located by the id itself.`,
      );
  }

  /** name and version: the package URL's, else the tree's product name and version, else the full name's. */
  private nameAndVersion(product: Product, id: string): { name: string; version?: string } {
    if (product.purl) return packageOf(product.purl);
    const name = product.productName ?? product.fullName ?? id;
    const version = product.version;
    if (version) {
      // The leaf's full name repeats the version ("Generic App 1.0.0"): keep the name alone.
      const bare = name.endsWith(` ${version}`) ? name.slice(0, -version.length - 1).trim() : name;
      return { name: bare || name, version };
    }
    if (product.productName) return { name };
    // full_product_names give only a name: a last word that starts with a digit is its version.
    const space = name.lastIndexOf(' ');
    const tail = name.slice(space + 1);
    return space > 0 && /^\d/.test(tail) ? { name: name.slice(0, space), version: tail } : { name };
  }

  private location(id: string): LocationRef | undefined {
    const product = this.products.get(id);
    if (!product) return undefined;
    const { name, version } = this.nameAndVersion(product, id);
    return { kind: 'Package', packageName: name, ...(version ? { packageVersion: version } : {}) };
  }

  /**
   * A relationship's parent as an asset; a parent that is itself a relationship ("app installed
   * on platform") stands for its own parent.
   */
  private parentAsset(id: string, depth = 0): AssetRef | undefined {
    const product = this.products.get(id);
    if (product) return this.assetOf(product, id);
    const relationship = this.relationships.get(id);
    return relationship && depth < MAX_BRANCH_DEPTH
      ? this.parentAsset(relationship.parent, depth + 1)
      : undefined;
  }

  private assetOf(product: Product, id: string): AssetRef {
    const asset = product.purl ? productAsset(product.purl) : undefined;
    if (asset?.kind === 'ContainerImage') return asset;
    return { kind: 'CodeRepository', repository: this.nameAndVersion(product, id).name };
  }

  private room(count = 1): boolean {
    if (this.entries + count > this.maxEntries) {
      this.dropped += count;
      return false;
    }
    this.entries += count;
    return true;
  }

  private addProduct(value: JsonObject | undefined, from: Omit<Product, 'fullName' | 'purl'>): void {
    const id = asText(value?.product_id);
    if (!value || !id || !this.room()) return;
    const helper = asObject(value.product_identification_helper);
    this.products.set(id, { ...from, fullName: asText(value.name), purl: asText(helper?.purl) });
  }

  private addRelationship(value: JsonObject | undefined): void {
    const full = asObject(value?.full_product_name);
    const id = asText(full?.product_id);
    const component = asText(value?.product_reference);
    const parent = asText(value?.relates_to_product_reference);
    if (!id || !component || !parent || !this.room()) return;
    const category = asText(value?.category)?.replace(/_/g, ' ');
    this.relationships.set(id, { component, parent, category, fullName: asText(full?.name) });
  }

  private addGroup(value: JsonObject | undefined): void {
    const id = asText(value?.group_id);
    const members = texts(value?.product_ids);
    if (id && members.length > 0 && this.room(members.length)) this.groups.set(id, members);
  }

  /** A branch's category, name or product, with the branches above it as they were last seen. */
  private branchField(path: JsonPath, value: unknown): void {
    const positions = branchPositions(path)!;
    const depth = positions.length - 1;
    const at = pathText(positions);
    if (this.branches[depth]?.at !== at) this.branches[depth] = { at };
    // Whatever was read below this branch belongs to a sibling or a child already done.
    this.branches.length = depth + 1;
    const level = this.branches[depth]!;
    const field = path[path.length - 1];
    if (field === 'category') level.category = asText(value);
    else if (field === 'name') level.name = asText(value);
    else this.addProduct(asObject(value), this.ancestry());
  }

  /** The nearest product_name and product_version among the current branch and its ancestors. */
  private ancestry(): Omit<Product, 'fullName' | 'purl'> {
    const nearest = (category: string) =>
      this.branches.findLast((b) => b?.category === category && b.name !== undefined)?.name;
    return { productName: nearest('product_name'), version: nearest('product_version') };
  }
}
