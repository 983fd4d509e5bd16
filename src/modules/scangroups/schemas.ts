import { Type } from 'typebox';
import { ScheduleOptionSchema } from '../../jobs/schedule-option.js';
import { scanListSchema } from '../savedscans/schemas.js';

// A scan group with the original service's field names (RADAR-COMPAT.md): its clients send these
// bodies to both channels, with booleans and numbers sometimes as strings ("true", "True", "10").

const Flag = (description?: string) =>
  Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ maxLength: 10 }), Type.Null()], {
      description: description ?? 'true or false; "true" and "True" as text are read too.',
    }),
  );
const Count = (description: string) =>
  Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 10 }), Type.Null()], { description }));
const Id = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description }));
const Text = (max: number, description?: string) =>
  Type.Optional(
    Type.Union([Type.String({ maxLength: max }), Type.Null()], description ? { description } : {}),
  );

export const AssetMonitoringBody = Type.Object(
  {
    Id: Id('The configuration’s id; a new one is given when absent.'),
    IsActive: Flag('An inactive configuration does nothing (default true).'),
    AssetSourceType: Text(50, 'Only `DiscoveryScan`.'),
    DiscoveryScanId: Type.String({
      maxLength: 100,
      description: 'The discovery scan whose reports are followed.',
    }),
    ScheduleId: Id(
      'A schedule of this organisation (a scan’s schedule), kept and answered; an id that names none is a 400. Empty or the nil UUID: none.',
    ),
    TrackSystemScans: Flag('Add a system scan for each host the discovery scan finds.'),
    RemoveSystemScanWhenUndiscovered: Flag(
      'Remove a host’s system scan when the discovery scan reports it gone.',
    ),
    RunSystemScanImmediatelyAfterAdd: Flag('Start a system scan as soon as it is added.'),
    RunSystemScanImmediatelyIfNewServicesDiscovered: Flag(
      'Start a host’s system scan when the discovery scan finds open ports it had not found before.',
    ),
    TrackWebScans: Flag('Add a web scan for each host and HTTP(S) port the discovery scan finds open.'),
    RemoveWebScanWhenUndiscovered: Flag('Remove a host’s web scans when the discovery scan reports it gone.'),
    RunWebScanImmediatelyAfterAdd: Flag('Start a web scan as soon as it is added.'),
    TrackedHttpPortRangeForWebScan: Text(
      200,
      'Ports scanned as http://, such as `80,8080-8090` (default 80).',
    ),
    TrackedHttpsPortRangeForWebScan: Text(200, 'Ports scanned as https:// (default 443).'),
  },
  { additionalProperties: true },
);

const Notification = Type.Object(
  {
    EmailAddresses: Type.Optional(
      Type.Union([
        Type.String({ maxLength: 10_000 }),
        Type.Array(Type.String({ maxLength: 254 }), { maxItems: 50 }),
        Type.Null(),
      ]),
    ),
    NotificationLevel: Text(50),
    NotificationLevelId: Type.Optional(
      Type.Union([Type.String({ maxLength: 10 }), Type.Integer(), Type.Null()]),
    ),
  },
  { additionalProperties: true },
);

export const ScanGroupBody = Type.Object(
  {
    ScanGroupName: Text(200, 'The group’s name (or `Name`).'),
    Name: Text(200, 'Another spelling of ScanGroupName.'),
    ScanDescription: Text(4000, 'The group’s description (or `Description`).'),
    Description: Text(4000),
    ScanningMode: Text(50, 'Only `RegularScan` (the default).'),
    ResponsiblePersonId: Id('A user of the organisation (`GET users`).'),
    ScanTargets: Type.Optional(Type.Union([Type.Array(Type.Unknown(), { maxItems: 0 }), Type.Null()])),
    SystemScanSettingsEnabled: Flag('Whether the group makes system scans (default false).'),
    MaxSystemScans: Count('System scans the group may hold (default 100, at most 10,000).'),
    SystemScanTemplateId: Id('A system template; the first built-in one when absent.'),
    SystemScanNodeId: Id('The node its system scans run on; any node serving system scans when absent.'),
    SystemScanScheduleId: Id(
      'A schedule of this organisation, kept and answered (an id that names none is a 400); Rampart schedules by SystemScanSchedule.',
    ),
    SystemScanSchedule: Type.Optional(Type.Union([ScheduleOptionSchema, Type.Null()])),
    WebScanSettingsEnabled: Flag('Whether the group makes web scans (default false).'),
    MaxWebScans: Count('Web scans the group may hold (default 100, at most 10,000).'),
    WebScanTemplateId: Id('A web template; the first built-in one when absent.'),
    WebScanNodeId: Id('The node its web scans run on; any node serving web scans when absent.'),
    WebScanScheduleId: Id(
      'A schedule of this organisation, kept and answered (an id that names none is a 400); Rampart schedules by WebScanSchedule.',
    ),
    WebScanSchedule: Type.Optional(Type.Union([ScheduleOptionSchema, Type.Null()])),
    MessageNotification: Type.Optional(Type.Union([Type.Array(Notification, { maxItems: 20 }), Type.Null()])),
    AssetMonitoringConfigurations: Type.Optional(
      Type.Union([Type.Array(AssetMonitoringBody, { maxItems: 50 }), Type.Null()]),
    ),
  },
  { additionalProperties: true },
);

const NullableText = Type.Union([Type.String(), Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const ScanGroupSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    ScanGroupName: Type.String(),
    ScanDescription: NullableText,
    ScanningMode: Type.String(),
    ResponsiblePersonId: NullableText,
    AssignedToUser: Type.Union(
      [
        Type.Object(
          { Id: Type.String(), Name: Type.String(), Email: Type.String() },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The responsible person.' },
    ),
    ScanTargets: Type.Array(Type.String(), { description: 'Always empty: scans come from monitoring.' }),
    SystemScanSettingsEnabled: Type.Boolean(),
    MaxSystemScans: Type.Integer(),
    SystemScanTemplateId: NullableText,
    SystemScanNodeId: NullableText,
    SystemScanScheduleId: NullableText,
    SystemScanSchedule: ScheduleOptionSchema,
    WebScanSettingsEnabled: Type.Boolean(),
    MaxWebScans: Type.Integer(),
    WebScanTemplateId: NullableText,
    WebScanNodeId: NullableText,
    WebScanScheduleId: NullableText,
    WebScanSchedule: ScheduleOptionSchema,
    MessageNotification: Type.Array(
      Type.Object(
        {
          EmailAddresses: Type.Array(Type.String()),
          NotificationLevel: Type.String(),
          NotificationLevelId: NullableText,
        },
        { additionalProperties: false },
      ),
    ),
    AssetMonitoringConfigurations: Type.Array(
      Type.Object(
        {
          Id: Type.String(),
          IsActive: Type.Boolean(),
          AssetSourceType: Type.Literal('DiscoveryScan'),
          DiscoveryScanId: Type.String(),
          ScheduleId: NullableText,
          TrackSystemScans: Type.Boolean(),
          RemoveSystemScanWhenUndiscovered: Type.Boolean(),
          RunSystemScanImmediatelyAfterAdd: Type.Boolean(),
          RunSystemScanImmediatelyIfNewServicesDiscovered: Type.Boolean(),
          TrackWebScans: Type.Boolean(),
          RemoveWebScanWhenUndiscovered: Type.Boolean(),
          RunWebScanImmediatelyAfterAdd: Type.Boolean(),
          TrackedHttpPortRangeForWebScan: Type.String(),
          TrackedHttpsPortRangeForWebScan: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    Notes: Type.Array(
      Type.Object({ At: DateTime, Message: Type.String() }, { additionalProperties: false }),
      {
        description:
          'What the monitoring did not do, and why (scans not added beyond the maximum, …), newest last.',
      },
    ),
    CreatedAt: DateTime,
    UpdatedAt: DateTime,
  },
  { additionalProperties: false },
);

export const ScanGroupListSchema = scanListSchema(ScanGroupSchema);

export const GroupScanList = Type.Array(
  Type.Object(
    {
      Id: Type.String(),
      Name: Type.String(),
      Hostname: NullableText,
      ScanLastCompleted: Type.Union([DateTime, Type.Null()]),
    },
    { additionalProperties: false },
  ),
);

export const NameIdList = Type.Array(
  Type.Object({ Name: Type.String(), Id: Type.String() }, { additionalProperties: false }),
);
