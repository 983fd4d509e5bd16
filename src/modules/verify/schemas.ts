import { Type } from 'typebox';

export const VerifyBody = Type.Object(
  {
    FindingIds: Type.Array(Type.String({ format: 'uuid' }), {
      minItems: 1,
      maxItems: 1000,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false },
);

export const VerifyResultSchema = Type.Object(
  {
    Runs: Type.Array(
      Type.Object(
        {
          RunId: Type.String({ format: 'uuid' }),
          ScanId: Type.String({ format: 'uuid' }),
          Kind: Type.Enum(['System', 'Web']),
          FindingIds: Type.Array(Type.String({ format: 'uuid' })),
        },
        { additionalProperties: false },
      ),
      { description: 'One run per scan that found the findings; only they may become Fixed by it.' },
    ),
    Skipped: Type.Array(
      Type.Object({ FindingId: Type.String(), Reason: Type.String() }, { additionalProperties: false }),
      { description: 'Findings not verified, each with why (another tool found it, the scan is busy…).' },
    ),
  },
  { additionalProperties: false },
);
