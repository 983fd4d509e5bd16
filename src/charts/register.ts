/**
 * The parts of ECharts the dashboard's charts use, registered once: only these are bundled (the
 * web app's dashboard chunk) or loaded (the server's SVG rendering), not the whole library.
 */
import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { init, use } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

use([BarChart, LineChart, ScatterChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/** A chart on an element (the browser) or, with `ssr`, on none (the server's SVG rendering). */
export const initChart: typeof init = init;
export type Chart = ReturnType<typeof init>;
