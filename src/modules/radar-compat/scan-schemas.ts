import { Type } from 'typebox';
import { ScheduleOptionSchema } from '../../jobs/schedule-option.js';
import { ScanTargetSchema } from '../savedscans/schemas.js';

// The original service's discovery-scan shapes, as its clients send and read them.

const Loose = (description: string) =>
  Type.Optional(
    Type.Union(
      [
        Type.String({ maxLength: 10_000 }),
        Type.Array(Type.String({ maxLength: 255 }), { maxItems: 256 }),
        Type.Null(),
      ],
      { description },
    ),
  );
const Named = Type.Optional(
  Type.Union([
    Type.Object(
      {
        Name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        Id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      },
      { additionalProperties: true },
    ),
    Type.Null(),
  ]),
);
const Flag = Type.Optional(Type.Union([Type.Boolean(), Type.String({ maxLength: 10 }), Type.Null()]));

/**
 * `POST DiscoveryScans` as clients send it: the whole scan object of the original's web app,
 * with camelCase `scanTargets` and `scanMode`, string booleans and fields Rampart has no use for
 * (accepted and ignored: `CanStartScan`, `ScanStatistics`, `AssetMonitorings`, …).
 */
export const RadarDiscoveryScanBody = Type.Object(
  {
    Id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    Name: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
        description: 'The scan’s name; real clients send null and name it in `scanTargets[0].Name`.',
      }),
    ),
    Range: Loose('Comma-separated targets, used when `scanTargets` is empty.'),
    Exclude: Loose('Comma-separated targets left out of every target.'),
    scanTargets: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object(
            {
              Range: Type.String({ minLength: 1, maxLength: 255 }),
              Name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
              Exclude: Loose('Parts of this target to leave out.'),
              invalidRangeSize: Flag,
            },
            { additionalProperties: true },
          ),
          { maxItems: 256 },
        ),
        Type.Null(),
      ]),
    ),
    ScanTargets: Type.Optional(
      Type.Array(ScanTargetSchema, {
        maxItems: 256,
        description: 'Rampart’s own targets, accepted here too (used when `scanTargets` is empty).',
      }),
    ),
    scanMode: Type.Optional(Type.Union([Type.Literal('hostDiscovery'), Type.Null()])),
    ScanNode: Named,
    ScanNodeId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    ScanTemplate: Named,
    TemplateId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    ScheduleOption: Type.Optional(Type.Union([ScheduleOptionSchema, Type.Null()])),
    MessageNotification: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object(
            {
              EmailAddresses: Loose('Addresses, comma-separated or a list.'),
              NotificationLevel: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
              NotificationLevelId: Type.Optional(
                Type.Union([Type.String({ maxLength: 10 }), Type.Integer(), Type.Null()]),
              ),
            },
            { additionalProperties: true },
          ),
          { maxItems: 20 },
        ),
        Type.Null(),
      ]),
    ),
    ResponsibleUser: Type.Optional(Type.Unknown()),
    CanStartScan: Flag,
    ScanRunState: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);

export const NameValueList = Type.Array(
  Type.Object({ Name: Type.String(), Value: Type.String() }, { additionalProperties: false }),
);
export const NameIdList = Type.Array(
  Type.Object({ Name: Type.String(), Id: Type.String() }, { additionalProperties: false }),
);

export const RadarScanPage = Type.Object({
  Items: Type.Array(
    Type.Object(
      {
        Id: Type.String(),
        Name: Type.String(),
        Range: Type.String({ description: 'The targets, comma-separated.' }),
        LastReportId: Type.Union([Type.String(), Type.Null()]),
        ScanLastCompleted: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  ),
  TotalCount: Type.Integer(),
});

export const RadarDiscoveryHostPage = Type.Object({
  Items: Type.Array(
    Type.Object(
      {
        IPAddress: Type.String({ description: 'Spelled as the original spells it in discovery hosts.' }),
        Hostname: Type.Union([Type.String(), Type.Null()]),
        OperatingSystem: Type.Union([Type.String(), Type.Null()]),
        MacAddress: Type.Union([Type.String(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  ),
  TotalCount: Type.Integer(),
});
