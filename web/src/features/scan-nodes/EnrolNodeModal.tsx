import { Alert, Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { CopyValue } from '../../components/CopyValue';
import { DateTime } from '../../components/DateTime';
import { DoneButton } from '../../components/DoneButton';
import { ErrorAlert } from '../../components/QueryError';
import { IconAlertTriangle } from '../../icons';
import { type Enrolment, useCreateEnrolment } from './api';

const VALIDITY_OPTIONS = [
  { value: '1', label: '1 hour' },
  { value: '24', label: '24 hours' },
  { value: '168', label: '7 days' },
];

/** Creates a one-time enrolment token and shows it once, with the command to run on the node. */
export function EnrolNodeModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateEnrolment();
  const [hours, setHours] = useState('24');
  const created = create.data;

  // Forgetting the mutation's answer is what removes the token from memory and from the screen.
  const close = () => {
    create.reset();
    onClose();
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title="Enrol a scan node"
      size="lg"
      centered
      closeOnClickOutside={!created}
    >
      {created ? (
        <CreatedEnrolment enrolment={created} onDone={close} />
      ) : (
        <Stack gap="md">
          <Text size="sm">
            A scan node is a <code>rampart scan-node</code> process on another machine, for networks the
            server cannot reach. It enrols once with a one-time token, then calls the server with its own key.
          </Text>
          <ErrorAlert error={create.error} />
          <Select
            label="The token can be used for"
            data={VALIDITY_OPTIONS}
            value={hours}
            onChange={(value) => setHours(value ?? '24')}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              loading={create.isPending}
              onClick={() => create.mutate({ ExpiresInHours: Number(hours) })}
            >
              Create token
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function CreatedEnrolment({ enrolment, onDone }: { enrolment: Enrolment; onDone: () => void }) {
  return (
    <Stack gap="md">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle />}>
        The token is shown only once, and enrols one node. It expires <DateTime value={enrolment.ExpiresAt} />
        .
      </Alert>
      <CopyValue
        label="Run this on the node’s machine"
        value={enrolment.Command}
        copyLabel="Copy command"
        testId="scan-node-command"
        block
      />
      <CopyValue label="Token" value={enrolment.Token} copyLabel="Copy token" testId="scan-node-token" />
      <Text size="sm" c="dimmed">
        The node keeps its key in <code>./rampart-scan-node.json</code> (or <code>--state FILE</code>) and
        needs no token afterwards. It appears in the list once it has enrolled.
      </Text>
      <DoneButton onDone={onDone} />
    </Stack>
  );
}
