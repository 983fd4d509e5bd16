import { Type } from 'typebox';
import { PageSchema, pageQueryFields } from '../../http/page.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ImportCountsSchema = Type.Object(
  {
    New: Type.Optional(Type.Integer({ description: 'Findings first seen in this report.' })),
    Reopened: Type.Optional(Type.Integer({ description: 'Fixed findings that this report shows again.' })),
    Fixed: Type.Optional(
      Type.Integer({
        description: 'Open findings of the scope (or of the report’s assets and tool) it no longer shows.',
      }),
    ),
    Unchanged: Type.Optional(Type.Integer({ description: 'Known findings seen again, their state kept.' })),
    DuplicatesMerged: Type.Optional(
      Type.Integer({ description: 'Results of the report that repeat another exactly.' }),
    ),
    AssetsCreated: Type.Optional(Type.Integer()),
    AssetsUpdated: Type.Optional(Type.Integer()),
    Findings: Type.Optional(Type.Integer({ description: 'Finding results read from the report.' })),
    Services: Type.Optional(Type.Integer()),
    Software: Type.Optional(Type.Integer()),
    Records: Type.Optional(
      Type.Integer({ description: 'Everything read: findings, services, software, hosts.' }),
    ),
    Skipped: Type.Optional(Type.Integer({ description: 'Records left out (see Warnings).' })),
    ParseMs: Type.Optional(Type.Integer()),
    MergeMs: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

export const ImportSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    State: Type.Union([
      Type.Literal('Queued'),
      Type.Literal('Running'),
      Type.Literal('Completed'),
      Type.Literal('Failed'),
    ]),
    Format: Nullable(Type.String({ examples: ['nessus'] })),
    FormatConfidence: Type.Union([Type.Number(), Type.Null()], {
      description: '1 when Format was given; else how sure detection was.',
    }),
    ScopeName: Nullable(Type.String()),
    FileName: Nullable(Type.String()),
    FileSha256: Type.String(),
    FileSize: Type.Integer({ description: 'Bytes as uploaded (compressed, when gzipped).' }),
    SameFileAs: Type.Union(
      [
        Type.Object(
          { Id: Type.String({ format: 'uuid' }), CreatedAt: Type.String({ format: 'date-time' }) },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      {
        description:
          'The latest earlier import of your organisation whose upload had the same SHA-256 (FileSha256): the same file imported again. It is imported all the same, as a re-import. null when no earlier import had it.',
      },
    ),
    Counts: ImportCountsSchema,
    Warnings: Type.Array(Type.String()),
    Attention: Type.Union(
      [
        Type.Object(
          {
            Reason: Type.Union([Type.Literal('NoFindings'), Type.Literal('MostlySkipped')], {
              description:
                'NoFindings: records were read but none became a finding, because some were skipped. MostlySkipped: more than half of the records read were skipped.',
            }),
            Detail: Type.String(),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      {
        description:
          'Set on a Completed import that stored little or nothing of what it read (see Warnings for what was skipped and why); null otherwise. `rampart import` exits 5 for it.',
      },
    ),
    Error: Nullable(
      Type.String({ description: 'Why a Failed import failed (with line and column when known).' }),
    ),
    CreatedAt: Type.String({ format: 'date-time' }),
    StartedAt: Nullable(Type.String({ format: 'date-time' })),
    FinishedAt: Nullable(Type.String({ format: 'date-time' })),
    DurationMs: Type.Union([Type.Integer(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const ImportListSchema = PageSchema(ImportSchema);

export const ImportListQuery = Type.Object(
  {
    ...pageQueryFields(50),
  },
  { additionalProperties: false },
);

export const SubmitImportQuery = Type.Object(
  {
    Format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'The report’s format; detected from its content when left out.',
      }),
    ),
    ScopeName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Re-import scope: open findings last reported in this scope and missing from this report become Fixed. Without it, the scope is the report’s tool on the report’s assets.',
      }),
    ),
    FileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const FormatListSchema = Type.Array(
  Type.Object(
    { Format: Type.String(), Label: Type.String(), Tool: Type.String() },
    { additionalProperties: false },
  ),
);
