import type { ScanNode } from './types.js';

// How scan nodes look on the wire. A node's key and an enrolment token appear only in the answer
// that creates them.

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toScanNodeDto = (n: ScanNode) => ({
  Id: n.id,
  Name: n.name,
  Kinds: n.kinds,
  Version: n.version,
  Capacity: n.capacity,
  State: n.state,
  LastHeartbeatAt: iso(n.lastHeartbeatAt),
  Local: n.local,
  CreatedAt: n.createdAt.toISOString(),
  RevokedAt: iso(n.revokedAt),
});

export const toScanNodeListDto = (nodes: ScanNode[]) => ({
  Items: nodes.map(toScanNodeDto),
  NextCursor: null,
  TotalCount: nodes.length,
});

/** The exact command an Admin runs on the node's machine. */
export const scanNodeCommand = (baseUrl: string, token: string) =>
  `rampart scan-node --server ${baseUrl} --token ${token}`;

export const toEnrolmentDto = (e: { id: string; expiresAt: Date }, token: string, baseUrl: string) => ({
  Id: e.id,
  Token: token,
  ExpiresAt: e.expiresAt.toISOString(),
  Command: scanNodeCommand(baseUrl, token),
});

export const toEnrolledDto = (node: ScanNode, nodeKey: string) => ({
  NodeId: node.id,
  NodeKey: nodeKey,
  OrganizationId: node.organizationId ?? '',
});

export const toHeartbeatDto = (
  answer: { node: ScanNode; stopRunIds: string[]; lostRunIds: string[] },
  leaseSeconds: number,
) => ({
  NodeId: answer.node.id,
  State: answer.node.state,
  StopRunIds: answer.stopRunIds,
  LostRunIds: answer.lostRunIds,
  LeaseSeconds: leaseSeconds,
});
