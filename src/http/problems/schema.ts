import { Type } from 'typebox';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri', description: 'Identifies the kind of problem.' }),
    title: Type.String({ description: 'Short summary of the kind of problem.' }),
    status: Type.Integer({ description: 'The HTTP status code.' }),
    detail: Type.String({ description: 'What went wrong with this request, for a human.' }),
    instance: Type.String({ description: 'The request path.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer to the offending value, or the parameter name.' }),
          message: Type.String(),
          suggestion: Type.Optional(Type.String({ description: 'The property name you probably meant.' })),
        }),
      ),
    ),
    correlationId: Type.Optional(Type.String({ description: 'Quote this when reporting a server error.' })),
    replacement: Type.Optional(Type.String({ description: 'The endpoint that replaces a removed one.' })),
    retryAfter: Type.Optional(Type.Integer({ description: 'Seconds to wait before retrying.' })),
    firstStatus: Type.Optional(
      Type.Integer({
        description:
          'idempotency-answer-gone: the status of the first answer to this Idempotency-Key, whose body was not kept.',
      }),
    ),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    description:
      'An RFC 9457 problem document, served as application/problem+json. Some problem types add members of their own (RFC 9457 §3.2), named in the documentation of each type.',
    // Extension members are part of a problem (an import's `formats`, a parse limit's `line`): the
    // answer's serializer keeps them, whichever route's schema answers that status.
    additionalProperties: true,
    examples: [
      {
        type: 'https://rampart.dev/problems/validation-failed',
        title: 'The request is not valid',
        status: 400,
        detail:
          "body /email: Unknown property 'email'; did you mean 'Email'? (property names are case-sensitive)",
        instance: '/api/latest/users',
        errors: [
          { path: '/email', message: "Unknown property 'email'; did you mean 'Email'?", suggestion: 'Email' },
        ],
      },
    ],
  },
);
