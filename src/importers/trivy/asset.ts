import { createHash } from 'node:crypto';
import type { AssetRef } from '../types.js';

/** The report-level fields that say what Trivy scanned. */
export interface TrivyHeader {
  artifactName?: string;
  /** container_image, filesystem, repository, rootfs, vm, cyclonedx, spdx… */
  artifactType?: string;
  /** Kubernetes reports (trivy k8s) name the cluster instead of an artifact. */
  clusterName?: string;
  operatingSystem?: string;
  repoTags: string[];
  repoDigests: string[];
  imageId?: string;
}

export function emptyHeader(): TrivyHeader {
  return { repoTags: [], repoDigests: [] };
}

/** "alpine:3.18 (alpine 3.18.4)": how Trivy names the OS-package result of an image. */
const OS_TARGET = /^(.+?) \(([a-z][\w.-]*) ([^()]+)\)$/i;

export interface TrivyAsset {
  asset: AssetRef;
  /** Set when the report does not name what was scanned and the asset is a guess. */
  warning?: string;
}

/**
 * The asset a Trivy report is about: the image for container_image, the host for vm, the
 * cluster (as a host named after it) for Kubernetes reports (whose image contents go to their
 * images: see kubernetesImage), and the repository or project for
 * everything else (filesystem, repository, rootfs, SBOM files). Legacy reports (a bare array of
 * results) name no artifact: the image is read from the first target, "name (os version)".
 */
export function trivyAsset(header: TrivyHeader, firstTarget: string | undefined): TrivyAsset {
  const fromTarget = firstTarget ? OS_TARGET.exec(firstTarget) : null;
  const operatingSystem =
    header.operatingSystem ?? (fromTarget ? `${fromTarget[2]} ${fromTarget[3]}` : undefined);
  if (header.clusterName) return { asset: clusterAsset(header.clusterName) };
  const type = header.artifactType;
  if (type === 'container_image' || (!type && fromTarget)) {
    const image =
      header.artifactName ?? header.repoTags[0] ?? header.repoDigests[0] ?? fromTarget?.[1] ?? header.imageId;
    if (image) return { asset: { kind: 'ContainerImage', image, operatingSystem } };
  }
  if (type === 'vm' && header.artifactName)
    return { asset: { kind: 'Host', hostname: header.artifactName, operatingSystem } };
  if (header.artifactName) return { asset: { kind: 'CodeRepository', repository: header.artifactName } };
  const repository = firstTarget ?? 'unknown';
  return {
    asset: { kind: 'CodeRepository', repository },
    warning: `The report does not name the scanned artifact; its findings are filed under "${repository}".`,
  };
}

const HOST_LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?$/i;

/**
 * A Kubernetes cluster as a host: named as the report names it, identified by a host name made
 * of that name. Cluster names are kubectl context names, often no host name at all (EKS writes
 * the ARN, "arn:aws:eks:us-east-1:123456789012:cluster/prod"): their letters and digits are
 * kept, the rest become hyphens, and a name too long for one label keeps its start and a hash
 * of the whole, so that two clusters never share a host.
 */
export function clusterAsset(clusterName: string): AssetRef {
  const name = clusterName.trim();
  if (HOST_LABEL.test(name)) return { kind: 'Host', name, hostname: name };
  let label = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (label.length === 0 || label.length > 63) {
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
    label = `${label.slice(0, 54).replace(/-+$/, '')}-${hash}`.replace(/^-/, '');
  }
  return { kind: 'Host', name, hostname: label };
}

/** One image of a Kubernetes resource, from the resource's Metadata. */
export interface ResourceImage {
  repoTags: string[];
  repoDigests: string[];
  operatingSystem?: string;
}

/**
 * The image a result of a Kubernetes resource is about. An OS-package result names it in its
 * target ("nginx:1.25.2 (debian 12.1)"); a language-package or secret result names a path inside
 * it, and belongs to the image the resource's previous result named, or to the resource's only
 * image. Undefined when the result is not about an image (configuration checks) or it is unknown.
 */
export function kubernetesImage(
  target: string | undefined,
  images: readonly ResourceImage[],
  previous: AssetRef | undefined,
): AssetRef | undefined {
  const named = target ? imageNamedBy(target, images) : undefined;
  if (named) return named;
  if (previous) return previous;
  return images.length === 1 ? imageAsset(images[0]!) : undefined;
}

function imageNamedBy(target: string, images: readonly ResourceImage[]): AssetRef | undefined {
  for (const image of images) {
    const refs = [...image.repoTags, ...image.repoDigests];
    if (refs.some((ref) => target === ref || target.startsWith(`${ref} (`))) return imageAsset(image);
  }
  const fromTarget = OS_TARGET.exec(target);
  if (!fromTarget) return undefined;
  return {
    kind: 'ContainerImage',
    image: fromTarget[1]!,
    operatingSystem: `${fromTarget[2]} ${fromTarget[3]}`,
  };
}

function imageAsset(image: ResourceImage): AssetRef | undefined {
  const ref = image.repoTags[0] ?? image.repoDigests[0];
  if (!ref) return undefined;
  return {
    kind: 'ContainerImage',
    image: ref,
    ...(image.operatingSystem ? { operatingSystem: image.operatingSystem } : {}),
  };
}
