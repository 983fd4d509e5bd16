import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { mttrVsSlaOption, newVsFixedOption, severityColor } from '../../src/charts/index.js';
import { renderChartSvg } from '../../src/charts/svg.js';

/** The texts an SVG document shows. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe('renderChartSvg', () => {
  it('renders an option to an SVG document in Node, with its axis labels and values', () => {
    const svg = renderChartSvg(
      mttrVsSlaOption(
        [
          { Severity: 'Critical', SlaDays: 7, MeanDays: 12.5, MedianDays: 12, Count: 2 },
          { Severity: 'High', SlaDays: 30, MeanDays: 21, MedianDays: 20, Count: 5 },
        ],
        { theme: 'light' },
      ),
      { width: 640, height: 320 },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    // Well-formed XML, as PDF and SVG readers need it (a quote in a style attribute would break it).
    new SaxesParser().write(svg).close();
    expect(svg).toContain('width="640"');
    expect(svg).toContain('height="320"');
    expect(texts(svg)).toEqual(expect.arrayContaining(['Critical', 'High', '12.5', '21', 'SLA 7', 'SLA 30']));
    // The bars take the severity colours.
    expect(svg).toContain(severityColor('light', 'Critical'));
  });

  it('renders the same chart twice alike (no state left between renders)', () => {
    const option = newVsFixedOption(
      {
        Days: [
          {
            Date: '2026-11-02',
            Open: { Critical: 0, High: 0, Medium: 0, Low: 0, Info: 0 },
            New: 3,
            Fixed: 9,
            KevOpen: 0,
          },
        ],
      },
      { theme: 'dark' },
    );
    const a = renderChartSvg(option, { width: 400, height: 200 });
    const b = renderChartSvg(option, { width: 400, height: 200 });
    // Each chart instance names its style classes by its own number; the drawing is the same.
    const unnumbered = (svg: string) => svg.replace(/\bzr\d+-cls-\d+/g, 'zr-cls');
    expect(unnumbered(a)).toBe(unnumbered(b));
    expect(texts(a)).toEqual(expect.arrayContaining(['2026-11-02', 'New', 'Fixed']));
  });

  it('refuses a size it should not draw', () => {
    const option = newVsFixedOption({ Days: [] }, { theme: 'light' });
    expect(() => renderChartSvg(option, { width: 0, height: 100 })).toThrow(RangeError);
    expect(() => renderChartSvg(option, { width: 100, height: 100_000 })).toThrow(RangeError);
  });
});
