import { Button, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorAlert } from './QueryError';

interface ConfirmModalProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  confirmColor?: string;
  onConfirm: () => void;
  pending: boolean;
  error: unknown;
}

export function ConfirmModal(props: ConfirmModalProps) {
  const { opened, onClose, title, children, confirmLabel, confirmColor, onConfirm, pending, error } = props;
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Stack gap="md">
        {children}
        <ErrorAlert error={error} />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color={confirmColor} loading={pending} onClick={onConfirm} data-autofocus>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
