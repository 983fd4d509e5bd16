/**
 * The API's channels. Kept apart from channels.ts (route registration) so that types.ts, which
 * channels.ts needs, can name them without importing it back.
 */
export const CHANNELS = ['latest', 'integration'] as const;
export type Channel = (typeof CHANNELS)[number];
export const BOTH: readonly Channel[] = CHANNELS;
