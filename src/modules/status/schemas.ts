import { Type } from 'typebox';

export const StatusSchema = Type.Object(
  {
    Service: Type.String({ examples: ['Rampart'] }),
    Version: Type.String({ examples: ['0.1.0'] }),
    Time: Type.String({ format: 'date-time', description: 'The server clock, UTC.' }),
    Database: Type.Union([Type.Literal('embedded'), Type.Literal('postgresql')], {
      description:
        'embedded: the PostgreSQL server Rampart runs itself, data in its data folder; postgresql: a PostgreSQL server of DATABASE_URL.',
    }),
    Channel: Type.String({ examples: ['latest'] }),
    BaseUrl: Type.String({ description: 'The public base URL of this service (RAMPART_BASE_URL).' }),
  },
  { additionalProperties: false },
);
