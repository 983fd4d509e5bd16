import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One series of a family: a counter's or gauge's value, or a histogram's buckets, count and sum. */
export interface Series {
  labels: Record<string, string>;
  value?: number;
  buckets?: Record<string, number>;
  count?: number;
  sum?: number;
}

export interface Family {
  name: string;
  help: string;
  type: string;
  series: Series[];
}

/** What parse-prometheus-text-format answers (prom2json's shape). */
interface RawFamily {
  name: string;
  help: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
}

const parse = (text: string) => parsePrometheusTextFormat(text) as RawFamily[];

/**
 * A sample's value as a number; the parser lets a line without one through ('' would be 0).
 * Prometheus reads NaN in any case (Go's ParseFloat); prom-client writes `Nan` for a summary of
 * no samples yet (the event loop's, in the first moments of a process).
 */
function numberOf(value: string | undefined, family: string): number {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || (Number.isNaN(n) && !/^nan$/i.test(value)))
    throw new Error(`A sample of ${family} has no numeric value: ${JSON.stringify(value)}`);
  return n;
}
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The text exposition format read by parse-prometheus-text-format (a malformed line throws, and
 * so here does a sample without a numeric value, which the parser lets through). That parser folds all the series of a histogram family into one, keeping
 * their buckets under one key and dropping their labels, `_sum` and `_count`: so a histogram's
 * sample lines are read by it once more without their family's TYPE line — each `_bucket`, `_sum`
 * and `_count` series then a family the parser reads whole, labels included — and grouped here by
 * their labels other than `le`.
 */
export function parseMetrics(text: string): Family[] {
  return parse(text).map((raw): Family => {
    if (raw.type !== 'HISTOGRAM')
      return {
        name: raw.name,
        help: raw.help,
        type: raw.type,
        series: raw.metrics.map((m) => ({ labels: m.labels ?? {}, value: numberOf(m.value, raw.name) })),
      };
    const own = new RegExp(`^${literal(raw.name)}_(bucket|sum|count)[{ ]`);
    const lines = text.split('\n').filter((line) => own.test(line));
    const series = new Map<string, Series>();
    for (const part of parse(`${lines.join('\n')}\n`))
      for (const m of part.metrics) {
        const { le, ...labels } = m.labels ?? {};
        const key = JSON.stringify(Object.entries(labels).sort());
        const entry = series.get(key) ?? { labels, buckets: {} };
        const value = numberOf(m.value, part.name);
        if (part.name.endsWith('_bucket') && le !== undefined) entry.buckets![le] = value;
        else if (part.name.endsWith('_sum')) entry.sum = value;
        else if (part.name.endsWith('_count')) entry.count = value;
        series.set(key, entry);
      }
    return { name: raw.name, help: raw.help, type: raw.type, series: [...series.values()] };
  });
}

/** The series of `name` whose labels include `labels`. */
export function seriesOf(
  families: Family[],
  name: string,
  labels: Record<string, string> = {},
): Series | undefined {
  return families
    .find((f) => f.name === name)
    ?.series.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of a counter's or gauge's series (0 when it has none yet). */
export const metricValue = (families: Family[], name: string, labels: Record<string, string> = {}) =>
  seriesOf(families, name, labels)?.value ?? 0;

/** The count of a histogram's series (0 when it has none yet). */
export const histogramCount = (families: Family[], name: string, labels: Record<string, string> = {}) =>
  seriesOf(families, name, labels)?.count ?? 0;
