import { DATE_TIME_STYLE } from '../dates';

type TimeProps = { value: string | null | undefined; empty?: string };

/** A point in time written by `formatter` in the user's locale and zone; the exact ISO time shows on hover. */
export function FormattedTime({ value, empty, formatter }: TimeProps & { formatter: Intl.DateTimeFormat }) {
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

const formatter = new Intl.DateTimeFormat(undefined, DATE_TIME_STYLE);

/** A time in the user's locale; the exact ISO time shows on hover. */
export function DateTime({ value, empty = 'Never' }: TimeProps) {
  return <FormattedTime value={value} empty={empty} formatter={formatter} />;
}
