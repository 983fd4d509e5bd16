import { DATE_TIME_STYLE } from '../dates';

const formatter = new Intl.DateTimeFormat(undefined, DATE_TIME_STYLE);

/** A time in the user's locale; the exact ISO time shows on hover. */
export function DateTime({ value, empty = 'Never' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <>{empty}</>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <>{value}</>;
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {formatter.format(date)}
    </time>
  );
}
