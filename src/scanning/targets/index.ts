// Allowed scan targets: parsing, the policy checks of the server and the node, counting and
// expansion. Pure: no database, no HTTP, no network except the default resolver of expandTargets.
export { formatAddress, type Interval, IntervalSet, parseAddress } from './addresses.js';
export { ALWAYS_REFUSED, LOOPBACK } from './blocks.js';
export { countAddresses, type ExpandedAddress, expandTargets, type Resolver } from './expand.js';
export { isRefusal, type ParsedTarget, parseTarget } from './parse.js';
export {
  type CompiledPolicy,
  checkAddress,
  checkPolicyEntry,
  checkTarget,
  compilePolicy,
  entrySize,
  isLoopbackAddress,
  MAX_TARGET_ADDRESSES,
  NOTHING_ALLOWED,
} from './policy.js';
