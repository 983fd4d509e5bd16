export { type ChartPalette, type ChartTheme, paletteOf, severityColor } from './colors.js';
export {
  ageingOption,
  type ChartOption,
  type ChartOptions,
  kevExposureOption,
  mttrVsSlaOption,
  newVsFixedOption,
  openFindingsOverTimeOption,
  SERIES,
  slaComplianceOption,
  type WeekTotals,
  weeklyTotals,
  weekOf,
} from './options.js';
export * from './types.js';
