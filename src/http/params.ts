import { Type } from 'typebox';

/** The path of a route about one resource: its id. */
export const IdParams = Type.Object({ Id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
