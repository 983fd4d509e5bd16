import { Type } from 'typebox';
import { ALLOWED_TARGET_KINDS } from '../../db/schema.js';
import { PageSchema, pageQueryFields } from '../../http/page.js';
import { REFUSAL_RULES } from '../../scanning/contract.js';
import { MAX_PAGE_SIZE } from './service.js';

const TARGET_SYNTAX =
  'A CIDR (`10.0.0.0/24`, `2001:db8::/120`), a first-last range (`10.0.0.1-10.0.0.20`, or `10.0.0.1-20`), one address, or a host name (RFC 1123). Surrounding spaces are ignored.';

export const AllowedTargetKindSchema = Type.Enum(ALLOWED_TARGET_KINDS, {
  description: 'Allowed: scans may reach it. Excluded: scans never do, even inside an allowed range.',
});

export const AllowedTargetSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Kind: AllowedTargetKindSchema,
    Target: Type.String({
      description: 'The canonical form: a range that is a whole CIDR block is written as one.',
      examples: ['198.18.0.0/24'],
    }),
    Description: Type.Union([Type.String(), Type.Null()], { examples: ['Lab network'] }),
    AddressCount: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Addresses the entry covers; a host name counts 1, a *. wildcard is null.',
      examples: [256],
    }),
    CreatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const AllowedTargetListSchema = PageSchema(AllowedTargetSchema);

export const AllowedTargetListQuery = Type.Object(
  {
    ...pageQueryFields(100, MAX_PAGE_SIZE),
  },
  { additionalProperties: false },
);

export const CreateAllowedTargetSchema = Type.Object(
  {
    Kind: AllowedTargetKindSchema,
    Target: Type.String({
      minLength: 1,
      maxLength: 300,
      description: `${TARGET_SYNTAX} Allowed entries may also be a \`*.\` wildcard (\`*.lab.example.com\`: any name below, not the domain itself), hold at most 65,536 addresses (a /16), and never include an always-refused address; loopback only when the server sets RAMPART_SCAN_ALLOW_LOOPBACK=true. Excluded entries may be any size.`,
      examples: ['198.18.0.0/24'],
    }),
    Description: Type.Optional(Type.String({ maxLength: 500, examples: ['Lab network'] })),
  },
  {
    additionalProperties: false,
    examples: [{ Kind: 'Allowed', Target: '198.18.0.0/24', Description: 'Lab network' }],
  },
);

const TargetList = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 1000, description });

export const ScanTargetSchema = Type.Object(
  {
    Range: Type.String({
      minLength: 1,
      maxLength: 300,
      description: TARGET_SYNTAX,
      examples: ['198.18.0.0/24'],
    }),
    Name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    Exclude: Type.Optional(TargetList('Addresses inside this target to leave out (same syntax).')),
  },
  { additionalProperties: false },
);

export const CheckTargetsSchema = Type.Object(
  {
    Targets: Type.Array(ScanTargetSchema, { minItems: 1, maxItems: 1000 }),
    Exclusions: Type.Optional(TargetList('Scan-wide exclusions, on top of each target’s own.')),
  },
  {
    additionalProperties: false,
    examples: [
      {
        Targets: [{ Range: '198.18.0.0/24', Exclude: ['198.18.0.7'] }, { Range: '169.254.169.254' }],
        Exclusions: ['198.18.0.200-198.18.0.255'],
      },
    ],
  },
);

export const TargetVerdictSchema = Type.Object(
  {
    Range: Type.String({ description: 'The target as sent.' }),
    Allowed: Type.Boolean(),
    Rule: Type.Union([Type.Enum(REFUSAL_RULES), Type.Null()], {
      description:
        'Why it is refused: Syntax (malformed, or a malformed exclusion), TooLarge (more than a /16), AlwaysRefused (multicast, broadcast, link-local with the cloud metadata address, reserved, unspecified), Loopback (only with RAMPART_SCAN_ALLOW_LOOPBACK=true), NotAllowed (outside the allowed targets), Excluded (wholly excluded). Null when allowed.',
    }),
    Message: Type.Union([Type.String(), Type.Null()], {
      description: 'A sentence naming the target and the rule.',
    }),
    AddressCount: Type.Integer({
      description: 'Addresses it would scan, exclusions left out; 0 if it does not parse.',
    }),
  },
  { additionalProperties: false },
);

export const CheckTargetsResultSchema = Type.Object(
  {
    Items: Type.Array(TargetVerdictSchema),
    AddressCount: Type.Integer({
      description:
        'Addresses of all targets that parse together, each once, exclusions left out; a host name counts 1.',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        Items: [
          { Range: '198.18.0.0/24', Allowed: true, Rule: null, Message: null, AddressCount: 197 },
          {
            Range: '169.254.169.254',
            Allowed: false,
            Rule: 'AlwaysRefused',
            Message:
              '169.254.169.254 is in the link-local block 169.254.0.0/16 (with the cloud metadata address 169.254.169.254), which is never scanned.',
            AddressCount: 1,
          },
        ],
        AddressCount: 198,
      },
    ],
  },
);
