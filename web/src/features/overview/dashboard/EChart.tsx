import { useReducedMotion } from '@mantine/hooks';
import { useEffect, useRef } from 'react';
import type { ChartOption } from '../../../../../src/charts/options.js';
import { type Chart, initChart } from '../../../../../src/charts/register.js';

/** What a click on a bar, a point or an area tells: its series and category. */
export interface ChartItem {
  seriesName: string;
  name: string;
  dataIndex: number;
}

/**
 * One ECharts chart, drawn as SVG, following its container's width. The figure is an image for
 * assistive technology (its label says what it shows); the table beside it is the text alternative.
 */
export function EChart({
  option,
  label,
  height = 260,
  onItemClick,
}: {
  option: ChartOption;
  label: string;
  height?: number;
  onItemClick?: (item: ChartItem) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<Chart | null>(null);
  const reduceMotion = useReducedMotion();

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const instance = initChart(element, null, { renderer: 'svg' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(element);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(
      { ...option, animation: !reduceMotion && option.animation !== false },
      { notMerge: true },
    );
  }, [option, reduceMotion]);

  useEffect(() => {
    const instance = chart.current;
    if (!instance || !onItemClick) return;
    const handler = (p: { seriesName?: string; name?: string; dataIndex?: number }) =>
      onItemClick({ seriesName: p.seriesName ?? '', name: p.name ?? '', dataIndex: p.dataIndex ?? 0 });
    instance.on('click', handler);
    return () => {
      instance.off('click', handler);
    };
  }, [onItemClick]);

  return (
    <div
      ref={container}
      role="img"
      aria-label={label}
      style={{ width: '100%', height, cursor: onItemClick ? 'pointer' : undefined }}
    />
  );
}
