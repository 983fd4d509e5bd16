import { cloudEventType, EVENT_CATALOGUE, EVENT_TYPES } from './catalogue.js';

/**
 * The catalogue as the Markdown table of docs/events.md (a test keeps the two equal; print it
 * with `npx tsx -e "import('./src/modules/events/catalogue-table.ts').then((m) => console.log(m.eventCatalogueTable()))"`).
 */
export function eventCatalogueTable(): string {
  const rows = EVENT_TYPES.map((type) => {
    const e = EVENT_CATALOGUE[type];
    const facets = e.facets.length > 0 ? e.facets.map((f) => `\`${f}\``).join(', ') : '—';
    return `| \`${cloudEventType(type)}\` | ${e.version} | ${e.description.replace(/\|/g, '\\|')} | ${facets} |`;
  });
  return ['| type | version | when | facets |', '|---|---|---|---|', ...rows].join('\n');
}
