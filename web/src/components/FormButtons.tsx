import { Button, Group } from '@mantine/core';

/** The foot of a form: Cancel, then the submit button (spinning while the form is sent). */
export function FormButtons({
  onCancel,
  pending,
  submit,
}: {
  onCancel: () => void;
  pending: boolean;
  submit: string;
}) {
  return (
    <Group justify="flex-end" gap="sm">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" loading={pending}>
        {submit}
      </Button>
    </Group>
  );
}
