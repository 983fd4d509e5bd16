// The parser ships no types: what the tests use of it (its README's output shape).
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
