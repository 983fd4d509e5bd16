import { DateTime } from '../../components/DateTime';

/** A label for an id among select options, or the id when it is not among them. */
export function labelOf(options: { value: string; label: string }[] | undefined, id: string | null) {
  if (!id) return null;
  return options?.find((o) => o.value === id)?.label ?? id;
}

/** A scan's schedule in words, with its next run. */
export function ScheduleText({
  schedule,
  next,
}: {
  schedule: { SchedulingMode: string } | null;
  next: string | null;
}) {
  if (!schedule || schedule.SchedulingMode === 'None') return <>On demand only</>;
  return (
    <>
      {schedule.SchedulingMode}
      {next && (
        <>
          , next <DateTime value={next} />
        </>
      )}
    </>
  );
}
