import { TextInput } from '@mantine/core';

/** The required name of a saved thing (a scan, a scan group), first in its form. */
export function NameInput({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
}) {
  return (
    <TextInput
      label="Name"
      required
      maxLength={200}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
      data-autofocus
    />
  );
}
