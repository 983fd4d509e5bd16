import type { ChartSeverity } from './types.js';

export type ChartTheme = 'light' | 'dark';

/**
 * Severity colours of the web app's badges (web/src/components/Badges.tsx: red, orange, yellow,
 * blue, gray of Mantine's default palette), at the shade the app's theme fills with: 7 on a light
 * page, 5 on a dark one (web/src/theme.ts primaryShade), so a chart's Critical is the badge's.
 */
const SEVERITY_COLORS: Record<ChartTheme, Record<ChartSeverity, string>> = {
  light: { Critical: '#f03e3e', High: '#f76707', Medium: '#f59f00', Low: '#1c7ed6', Info: '#868e96' },
  dark: { Critical: '#ff6b6b', High: '#ff922b', Medium: '#fcc419', Low: '#339af0', Info: '#adb5bd' },
};

/** The colours of text, axes and grid lines on Mantine's light and dark page backgrounds. */
const PALETTE: Record<ChartTheme, ChartPalette> = {
  light: {
    text: '#212529',
    dimmed: '#495057',
    axis: '#adb5bd',
    grid: '#e9ecef',
    primary: '#39588f',
    positive: '#2f9e44',
    negative: '#e03131',
    kev: '#c2255c',
    sla: '#212529',
  },
  dark: {
    text: '#c9c9c9',
    dimmed: '#a8a8a8',
    axis: '#696969',
    grid: '#3b3b3b',
    primary: '#748dc1',
    positive: '#51cf66',
    negative: '#ff6b6b',
    kev: '#f06595',
    sla: '#f1f3f5',
  },
};

export interface ChartPalette {
  text: string;
  dimmed: string;
  axis: string;
  grid: string;
  /** The app's primary colour (rampart navy). */
  primary: string;
  /** Fixed, within SLA. */
  positive: string;
  /** New, past SLA. */
  negative: string;
  /** Known exploited vulnerabilities. */
  kev: string;
  /** The SLA markers. */
  sla: string;
}

export function severityColor(theme: ChartTheme, severity: ChartSeverity): string {
  return SEVERITY_COLORS[theme][severity];
}

export function paletteOf(theme: ChartTheme): ChartPalette {
  return PALETTE[theme];
}
