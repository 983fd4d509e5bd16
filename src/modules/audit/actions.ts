/**
 * Every action the audit log records, with what it means: the reference of docs/audit-log.md and
 * of the web page's action filter. A name is `<thing>.<what happened>`; names are stored with each
 * entry, so one is never renamed (a new name is added instead).
 */
export const AUDIT_ACTIONS = {
  'session.signed_in':
    'A user signed in to the web app (target: the session); details say method sso and the provider for a single sign-on.',
  'session.sign_in_failed':
    'A sign-in with the email of a known user failed (wrong password, inactive user); details hold the email tried, never the password.',
  'session.second_factor_failed':
    'At the second step of a sign-in, a wrong code or recovery code was given (details: method, failed attempts of that sign-in); never the code.',
  'session.signed_out':
    'A user signed out, or their session ended as they switched organisations (details: switchedTo).',
  'user.created': 'A user was added (details: email, role).',
  'user.updated': 'A user’s name, role or status changed (details: what changed).',
  'user.role_changed': 'A user’s role changed (details: from, to); recorded beside user.updated.',
  'user.password_reset': 'An Admin (or the command line) reset a user’s password.',
  'user.password_changed': 'A user changed their own password.',
  'mfa.enrolled':
    'A user set up a second factor (TOTP) and got new recovery codes (details: whether it replaced one, whether at sign-in because the organisation requires one).',
  'mfa.disabled':
    'A user removed their own second factor (details: confirmed with their password or a code).',
  'mfa.reset':
    'An Admin removed a user’s second factor (a lost device) and ended their sessions (target: the user).',
  'mfa.recovery_codes_regenerated': 'A user made new recovery codes; the old ones stopped working.',
  'mfa.recovery_code_used': 'A recovery code was used to sign in (details: how many are left).',
  'apikey.created': 'An API key was created (details: name, access key; never the secret).',
  'apikey.revoked': 'An API key was revoked.',
  'organization.created':
    'An organisation was created (web app or command line; details: its name, its first Admin, the installation Admin or `cli`).',
  'organization.renamed': 'An installation Admin renamed the organisation (details: from, to).',
  'organization.deactivated':
    'An installation Admin deactivated the organisation: its sessions ended, its keys stopped.',
  'organization.reactivated': 'An installation Admin reactivated the organisation.',
  'settings.sla_changed': 'The organisation’s SLAs changed (details: the new SLAs).',
  'settings.audit_retention_changed': 'The audit log’s retention changed (details: from, to, in days).',
  'settings.time_zone_changed': 'The organisation’s time zone changed (details: from, to).',
  'settings.require_mfa_changed':
    'Whether password users must have a second factor changed (details: from, to).',
  'allowedtarget.created': 'An allowed scan target was added.',
  'allowedtarget.deleted': 'An allowed scan target was removed.',
  'finding.risk_accepted': 'A finding’s risk was accepted (details: justification, until, previous state).',
  'findings.risk_accepted':
    'Findings matching a filter had their risk accepted in one go (details: filter, counts, justification, until).',
  'import.submitted': 'A scanner report was submitted for import (details: format, size, SHA-256).',
  'asset.created': 'An asset was added by hand.',
  'asset.updated': 'An asset was changed (details: the fields changed).',
  'asset.deleted': 'An asset was deleted.',
  'assets.tagged': 'Assets matching a filter were tagged or untagged.',
  'software.deleted': 'A software entry was removed from an asset (details: the asset).',
  'ticket.deleted': 'A ticket was deleted (details: its number and title).',
  'discovery-scan.created': 'A discovery scan was saved.',
  'discovery-scan.updated': 'A discovery scan was changed.',
  'discovery-scan.deleted': 'A discovery scan was deleted.',
  'discovery-scan.started': 'A discovery scan was started (by a person, or by its schedule: actor system).',
  'discovery-scan.stopped': 'A discovery scan’s run was stopped.',
  'system-scan.created': 'A system scan was saved.',
  'system-scan.updated': 'A system scan was changed.',
  'system-scan.deleted': 'A system scan was deleted.',
  'system-scan.started': 'A system scan was started (by a person, or by its schedule: actor system).',
  'system-scan.stopped': 'A system scan’s run was stopped.',
  'system-scan.verify-started': 'A narrowed run of a system scan was started to verify findings.',
  'web-scan.created': 'A web scan was saved.',
  'web-scan.updated': 'A web scan was changed.',
  'web-scan.deleted': 'A web scan was deleted.',
  'web-scan.started': 'A web scan was started (by a person, or by its schedule: actor system).',
  'web-scan.stopped': 'A web scan’s run was stopped.',
  'web-scan.verify-started': 'A narrowed run of a web scan was started to verify findings.',
  'scan-group.created': 'A scan group was created.',
  'scan-group.updated': 'A scan group was changed.',
  'scan-group.deleted': 'A scan group was deleted.',
  'scan-template.created': 'A scan template was created.',
  'scan-template.updated': 'A scan template was changed.',
  'scan-template.deleted': 'A scan template was deleted.',
  'scannode.enrolment.created': 'A one-time enrolment token for a scan node was made.',
  'scannode.enrolled': 'A scan node enrolled with a token.',
  'scannode.revoked': 'A scan node’s key was revoked.',
  'export.downloaded':
    'A list was downloaded as CSV (details: which list — findings, assets, auditlog — and its filter).',
  'report.downloaded': 'A report’s file was downloaded (details: its format).',
  'notificationendpoint.created':
    'A notification endpoint was added (details: name, kind; never its secret).',
  'notificationendpoint.changed': 'A notification endpoint was changed (details: the fields changed).',
  'notificationendpoint.enabled': 'A notification endpoint was enabled again after being disabled.',
  'notificationendpoint.deleted': 'A notification endpoint was deleted.',
  'notificationrule.created': 'A notification rule was created (details: event types, filters, endpoints).',
  'notificationrule.changed': 'A notification rule was changed.',
  'notificationrule.deleted': 'A notification rule was deleted.',
  'notificationdelivery.redelivered': 'A notification delivery was sent again by hand.',
  'report.deleted': 'A report and its file were deleted.',
  'report-definition.created': 'A report definition (scheduled or saved report) was created.',
  'report-definition.updated': 'A report definition was changed.',
  'report-definition.deleted': 'A report definition was deleted.',
  'session.sso_sign_in_failed':
    'A single sign-on was refused (target: the provider; details: provider, reason, message): a wrong state, a code used already, an ID token that failed validation, a provider that could not be reached, no mapped role, a deactivated user.',
  'ssoprovider.created':
    'A single sign-on provider was added (details: name, issuer, client id; never the client secret).',
  'ssoprovider.changed':
    'A single sign-on provider was changed (details: the fields changed; never the client secret).',
  'ssoprovider.deleted': 'A single sign-on provider was removed.',
  'settings.sso_only_changed':
    'Single sign-on only was turned on or off for the organisation (details: from, to).',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** The action of a report download: the reports module records it through AuditService.reportDownloaded. */
export const REPORT_DOWNLOADED = 'report.downloaded' satisfies AuditAction;
/** The action of a CSV export of a list. */
export const EXPORT_DOWNLOADED = 'export.downloaded' satisfies AuditAction;
