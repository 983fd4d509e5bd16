/**
 * Rampart's look on the API documentation page, in place of the stock Swagger UI one. Kept here as
 * text so that the server needs no file beside its code; the favicon is the web app's own
 * (web/public/favicon.svg, checked equal by a test).
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#4c6ef5" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><title>Rampart</title><path d="M12 3a12 12 0 0 0 8.5 3a12 12 0 0 1 -8.5 15a12 12 0 0 1 -8.5 -15a12 12 0 0 0 8.5 -3" fill="#4c6ef5" fill-opacity="0.15"/><path d="M9 12l2 2l4 -4"/></svg>\n';

/** The shield and the name, light on the page's dark top bar. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 164 40" width="164" height="40"><title>Rampart</title><g transform="translate(2 2) scale(1.5)" fill="none" stroke="#91a7ff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M12 3a12 12 0 0 0 8.5 3a12 12 0 0 1 -8.5 15a12 12 0 0 1 -8.5 -15a12 12 0 0 0 8.5 -3" fill="#4c6ef5" fill-opacity="0.35"/><path d="M9 12l2 2l4 -4"/></g><text x="44" y="28" fill="#ffffff" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="24" font-weight="700">Rampart</text></svg>`;

/** The top bar in the web app's colours; the spec URL box is of no use to a reader here. */
export const THEME_CSS = `.swagger-ui .topbar { background-color: #1c2340; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
`;
