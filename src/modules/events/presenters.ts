import {
  cloudEventType,
  dataSchemaUri,
  EVENT_CATALOGUE,
  type EventType,
  schemaComponentName,
} from './catalogue.js';

/** One type of the events catalogue on the wire (GET /events/types). */
export const toEventTypeDto = (type: EventType) => {
  const e = EVENT_CATALOGUE[type];
  return {
    Type: type,
    CloudEventType: cloudEventType(type),
    Version: e.version,
    Description: e.description,
    Facets: [...e.facets],
    DataSchema: dataSchemaUri(type),
    SchemaComponent: schemaComponentName(type),
    // Plain JSON: the schema object's own enumerable keys (TypeBox keeps its marks on symbols).
    Schema: JSON.parse(JSON.stringify(e.schema)) as Record<string, unknown>,
  };
};
