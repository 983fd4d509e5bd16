import { Group, Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import { ApiError } from '../../api/client';
import type { DiscoveryScan } from '../../api/discovery';

/** The schedule every scan kind and a scan group's settings share (the server's ScheduleOption). */
export type ScheduleOption = DiscoveryScan['Schedule'];
type ScheduleMode = ScheduleOption['SchedulingMode'];

const SCHEDULE_MODES: { value: ScheduleMode; label: string }[] = [
  { value: 'None', label: 'On demand only' },
  { value: 'Once', label: 'Once' },
  { value: 'Hourly', label: 'Every hour' },
  { value: 'Daily', label: 'Every day' },
  { value: 'Weekly', label: 'Every week' },
  { value: 'Monthly', label: 'Every month' },
];

/** A datetime-local input's value (local time, to the minute) for an ISO time. */
function localInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export interface ScheduleState {
  mode: ScheduleMode;
  setMode: (mode: ScheduleMode) => void;
  startTime: string;
  setStartTime: (value: string) => void;
  /** What the browser can tell before asking the server: a schedule needs its start. */
  missingStart: boolean;
  /** The ScheduleOption to send. */
  option: () => ScheduleOption;
}

export function useScheduleState(initial: ScheduleOption | undefined | null): ScheduleState {
  const [mode, setMode] = useState<ScheduleMode>(initial?.SchedulingMode ?? 'None');
  const [startTime, setStartTime] = useState(localInput(initial?.StartTime));
  return {
    mode,
    setMode,
    startTime,
    setStartTime,
    missingStart: mode !== 'None' && !startTime,
    option: () =>
      mode === 'None'
        ? { SchedulingMode: 'None' }
        : {
            SchedulingMode: mode,
            StartTime: new Date(startTime).toISOString(),
            // Daily, weekly and monthly runs keep their time of day in the browser's zone.
            TimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          },
  };
}

export function ScheduleFields({
  state,
  error,
  label = 'Schedule',
}: {
  state: ScheduleState;
  error?: string | undefined;
  label?: string;
}) {
  return (
    <Group grow align="flex-start">
      <Select
        label={label}
        data={SCHEDULE_MODES}
        value={state.mode}
        onChange={(value) => value && state.setMode(value as ScheduleMode)}
        allowDeselect={false}
        error={state.mode === 'None' ? error : undefined}
      />
      {state.mode !== 'None' && (
        <TextInput
          label={state.mode === 'Once' ? 'At' : 'Starting'}
          type="datetime-local"
          value={state.startTime}
          onChange={(e) => state.setStartTime(e.currentTarget.value)}
          error={error}
        />
      )}
    </Group>
  );
}

/**
 * The server's field errors placed on the form's fields: each field takes the first error whose
 * JSON pointer starts with one of its prefixes. Null when none of them names a field of the form
 * (the form then shows the problem as a whole).
 */
export function fieldErrors<F extends string>(
  error: unknown,
  fields: Record<F, readonly string[]>,
): Partial<Record<F, string>> | null {
  if (!(error instanceof ApiError)) return null;
  const found: Partial<Record<F, string>> = {};
  let any = false;
  for (const [field, prefixes] of Object.entries(fields) as [F, readonly string[]][]) {
    const match = error.problem.errors?.find((e) =>
      prefixes.some((p) => e.path === p || e.path.startsWith(`${p}/`)),
    );
    if (match) {
      found[field] = match.message;
      any = true;
    }
  }
  return any ? found : null;
}
