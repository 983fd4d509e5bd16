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
 * cluster (as a host named after it) for Kubernetes reports, and the repository or project for
 * everything else (filesystem, repository, rootfs, SBOM files). Legacy reports (a bare array of
 * results) name no artifact: the image is read from the first target, "name (os version)".
 */
export function trivyAsset(header: TrivyHeader, firstTarget: string | undefined): TrivyAsset {
  const fromTarget = firstTarget ? OS_TARGET.exec(firstTarget) : null;
  const operatingSystem =
    header.operatingSystem ?? (fromTarget ? `${fromTarget[2]} ${fromTarget[3]}` : undefined);
  if (header.clusterName)
    return { asset: { kind: 'Host', name: header.clusterName, hostname: header.clusterName } };
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
