import type { ServiceContext } from '../context.js';
import type { NotificationService } from '../notifications/service.js';
import type { NotificationRule, RuleOwner } from '../notifications/types.js';
import type { NotificationLevel, ScanNotification } from '../savedscans/types.js';
import { mailtoOf } from './channel.js';

// The original service's MessageNotification on discovery scans and scan groups, as notification
// rules: each level with its addresses becomes a rule for that scan's (or that group's scans')
// events with an Email endpoint for the addresses. The scan or group owns them: they are made,
// changed and removed when it is saved or deleted, and the rules API refuses to change them.

/** The events each level of the original tells about. */
export const LEVEL_EVENTS: Record<NotificationLevel, string[]> = {
  Never: [],
  ScanEnds: ['scan.completed', 'scan.failed'],
  ScanStartsEnds: ['scan.started', 'scan.completed', 'scan.failed'],
  ScanFails: ['scan.failed'],
};

/** What the sync asks of the notifications module. */
export type OwnedRules = Pick<
  NotificationService,
  | 'listRules'
  | 'createRule'
  | 'updateRule'
  | 'deleteRule'
  | 'createEndpoint'
  | 'updateEndpoint'
  | 'deleteEndpoint'
>;

const OWNER_WORDS: Record<RuleOwner['kind'], string> = {
  DiscoveryScan: 'Discovery scan',
  ScanGroup: 'Scan group',
};

/** The rules' and endpoints' names: the owner and the level (names are unique per organisation). */
const nameOf = (owner: RuleOwner, level: NotificationLevel, what: 'rule' | 'email') =>
  `${OWNER_WORDS[owner.kind]} ${owner.name.slice(0, 50)} (${owner.id.slice(-8)}): ${level}${what === 'email' ? ' email' : ''}`;

/** The levels asked for, each with its addresses (entries of one level merged), Never left out. */
function wanted(notifications: ScanNotification[]): Map<NotificationLevel, string[]> {
  const byLevel = new Map<NotificationLevel, string[]>();
  for (const n of notifications) {
    if (n.level === 'Never' || n.emailAddresses.length === 0) continue;
    const addresses = new Set([
      ...(byLevel.get(n.level) ?? []),
      ...n.emailAddresses.map((a) => a.trim().toLowerCase()),
    ]);
    byLevel.set(n.level, [...addresses].filter(Boolean));
  }
  return byLevel;
}

const levelOf = (rule: NotificationRule): NotificationLevel | undefined =>
  (Object.keys(LEVEL_EVENTS) as NotificationLevel[]).find(
    (l) => l !== 'Never' && LEVEL_EVENTS[l].join() === [...rule.eventTypes].sort(byCatalogue).join(),
  );
const ORDER = ['scan.started', 'scan.completed', 'scan.failed'];
const byCatalogue = (a: string, b: string) => ORDER.indexOf(a) - ORDER.indexOf(b);

export class ScanNotificationRules {
  constructor(private readonly notifications: OwnedRules) {}

  /**
   * Makes the owner's rules what its MessageNotification says (null: the owner is deleted, its
   * rules and their endpoints go). Run after the owner is saved, in its organisation.
   */
  async sync(ctx: ServiceContext, owner: RuleOwner, notifications: ScanNotification[] | null): Promise<void> {
    const system: ServiceContext = { ...ctx, actor: { type: 'system', id: null } };
    const owned = (await this.notifications.listRules(system)).filter(
      (r) => r.managedBy?.kind === owner.kind && r.managedBy.id === owner.id,
    );
    const levels = wanted(notifications ?? []);
    const filter = owner.kind === 'DiscoveryScan' ? { scanId: owner.id } : { scanGroupId: owner.id };
    for (const rule of owned) {
      const level = levelOf(rule);
      const addresses = level ? levels.get(level) : undefined;
      if (level && addresses) {
        for (const endpointId of rule.endpointIds)
          await this.notifications.updateEndpoint(system, endpointId, {
            name: nameOf(owner, level, 'email'),
            url: mailtoOf(addresses),
          });
        await this.notifications.updateRule(system, rule.id, {
          name: nameOf(owner, level, 'rule'),
          managedBy: owner,
        });
        levels.delete(level);
        continue;
      }
      await this.notifications.deleteRule(system, rule.id, owner);
      for (const endpointId of rule.endpointIds)
        await this.notifications.deleteEndpoint(system, endpointId).catch(() => undefined);
    }
    for (const [level, addresses] of levels) {
      const { endpoint } = await this.notifications.createEndpoint(system, {
        name: nameOf(owner, level, 'email'),
        kind: 'Email',
        url: mailtoOf(addresses),
      });
      await this.notifications.createRule(system, {
        name: nameOf(owner, level, 'rule'),
        eventTypes: LEVEL_EVENTS[level],
        endpointIds: [endpoint.id],
        managedBy: owner,
        ...filter,
      });
    }
  }
}
