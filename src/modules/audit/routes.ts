import { type ChannelRoutes, jsonOrCsv, routeGroup } from '../../http/channels.js';
import { sendCsv, wantsCsv } from '../../http/csv.js';
import { toPageDto } from '../../http/page.js';
import { contextOf } from '../../http/request-context.js';
import type { AuditLogService } from './log.js';
import { AUDIT_CSV, auditFilterFrom, toAuditEntryDto } from './presenters.js';
import { AuditLogQuery, AuditLogSchema } from './schemas.js';

// The audit log is read only: there is no route that changes or deletes an entry (and the table
// refuses it too). Entries go when the organisation's retention (AuditRetentionDays) has passed.
export const auditRoutes =
  (log: AuditLogService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Audit log'], channels: ['latest'] });
    group.get('/auditlog', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'listAuditLog',
        summary: 'The audit log: who did what, newest first',
        description: [
          'Sign-ins and their failures, API keys created and revoked, roles changed, risks accepted, settings and allowed targets changed, imports, scans started and stopped, deletions, exports and report downloads (docs/audit-log.md lists every action).',
          'Keyset pages newest first (pass NextCursor as Cursor). With `Accept: text/csv`, every matching entry as streamed CSV; the download is itself recorded (`export.downloaded`).',
          'Entries cannot be changed or deleted; they are kept for the organisation’s `AuditRetentionDays` (settings).',
        ].join('\n\n'),
        querystring: AuditLogQuery,
        response: { 200: jsonOrCsv('A page of entries, or all of them as CSV.', AuditLogSchema) },
      },
      handler: async (request, reply) => {
        const context = contextOf(request);
        const filter = auditFilterFrom(request.query);
        if (wantsCsv(request))
          return sendCsv(request, reply, 'auditlog.csv', AUDIT_CSV, await log.stream(context, filter));
        const page = await log.list(context, filter, request.query.PageSize ?? 100, request.query.Cursor);
        return toPageDto(page, toAuditEntryDto);
      },
    });
  };
