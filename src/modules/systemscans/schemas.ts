import { Type } from 'typebox';
import { ScheduleOptionSchema } from '../../jobs/schedule-option.js';
import {
  DateTime,
  ExclusionsBody,
  NullableUuid,
  RunImportSchema,
  RunSummarySchema,
  ScanTargetSchema,
  scanRunFields,
  targetScanFields,
  Uuid,
} from '../savedscans/schemas.js';

export const SystemScanBody = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    ScanTargets: Type.Optional(Type.Array(ScanTargetSchema, { maxItems: 256 })),
    AssetId: Type.Optional(
      NullableUuid('A host asset whose addresses are the targets (instead of ScanTargets).'),
    ),
    Exclusions: ExclusionsBody(Type.String({ minLength: 1, maxLength: 255 })),
    TemplateId: Type.Optional(Uuid('A System template; "System scan, well-known ports [S1]" when left out.')),
    ScanNodeId: Type.Optional(
      NullableUuid('The node that runs it; any node serving system scans when null.'),
    ),
    Schedule: Type.Optional(ScheduleOptionSchema),
    ScanGroupId: Type.Optional(NullableUuid('The scan group it belongs to.')),
  },
  { additionalProperties: false },
);

export const SystemScanSchema = Type.Object(
  {
    ...targetScanFields('The node that runs it; any node serving system scans when null.'),
    Schedule: ScheduleOptionSchema,
    ScanGroupId: NullableUuid('The scan group it belongs to.'),
    NextRunAt: Type.Union([DateTime, Type.Null()]),
    ...scanRunFields({ lastCompletedRunId: 'Its latest completed run.' }),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const SystemRunReportSchema = Type.Object(
  {
    Run: RunSummarySchema,
    Verify: Type.Union([Type.Object({ FindingIds: Type.Array(Uuid()) }), Type.Null()], {
      description: 'A Verify run: the findings it was asked about (only they may become Fixed).',
    }),
    Ports: Type.String({ description: 'The ports it probes: the template’s, or the Verify run’s list.' }),
    Hosts: Type.Array(
      Type.Object(
        {
          IpAddress: Type.String(),
          Hostname: Nullable(Type.String()),
          Answered: Type.Boolean({
            description:
              'False: the host did not answer (no port accepted or refused a connection, and no ARP/NDP answer on the node’s segment). It is not made an asset, its LastSeen does not move and its findings are not judged.',
          }),
          OpenPorts: Type.Array(Type.Integer()),
          UnscannedPorts: Type.Array(Type.Integer(), {
            description: 'Not scanned because a budget ran out: their earlier findings were not judged.',
          }),
          BudgetExhausted: Type.Union([
            Type.Literal('port'),
            Type.Literal('host'),
            Type.Literal('run'),
            Type.Null(),
          ]),
          Services: Type.Array(
            Type.Object(
              {
                Port: Type.Integer(),
                Service: Nullable(Type.String()),
                Product: Nullable(Type.String()),
                Version: Nullable(Type.String()),
                Cpes: Type.Array(Type.String()),
                Banner: Nullable(Type.String()),
                Tls: Type.Boolean(),
                DetectedBy: Type.String(),
              },
              { additionalProperties: false },
            ),
          ),
          Checks: Type.Array(
            Type.Object(
              {
                CheckId: Type.String(),
                Title: Type.String({
                  description: 'From the catalogue of Rampart’s checks; the id when unknown.',
                }),
                Severity: Type.String(),
                Port: Type.Union([Type.Integer(), Type.Null()]),
                Evidence: Type.String(),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    Backports: Type.Array(
      Type.Object(
        {
          IpAddress: Type.String(),
          Port: Type.Union([Type.Integer(), Type.Null()]),
          Banner: Type.String(),
          Cve: Type.String(),
          Status: Type.String({
            description:
              'Fixed (no finding: the build carries the fix), Affected, BannerOnly (undecided), or Unconfirmed (the banner names the build but Rampart holds no advisory data of its distribution for the package: the finding is Unconfirmed).',
          }),
          Evidence: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    Import: RunImportSchema(
      Type.Number(),
      Uuid(),
      'The import its findings were stored by (New, Fixed, Reopened…); null until stored.',
    ),
    IngestError: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
