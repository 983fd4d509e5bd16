/**
 * A chart option rendered to an SVG document on the server, without a DOM (ECharts' server-side
 * rendering): what reports put in their PDFs and HTML, the same options the dashboard draws.
 */
import type { ChartOption } from './options.js';
import { initChart } from './register.js';

export interface SvgSize {
  width: number;
  height: number;
}

export function renderChartSvg(option: ChartOption, size: SvgSize): string {
  if (!(size.width > 0 && size.height > 0 && size.width <= 4000 && size.height <= 4000))
    throw new RangeError('The chart must be between 1 and 4000 pixels wide and high.');
  const chart = initChart(null, null, {
    renderer: 'svg',
    ssr: true,
    width: size.width,
    height: size.height,
  });
  try {
    // No animation: the string is taken at once, and an animated chart would be caught mid-way.
    chart.setOption({ ...option, animation: false });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
