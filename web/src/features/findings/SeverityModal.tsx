import { Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { SEVERITIES } from '../../api/findings';
import type { Finding, Severity } from '../../api/types';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';

const SCANNER = 'scanner';

interface SeverityModalProps {
  opened: boolean;
  onClose: () => void;
  finding: Finding;
  pending: boolean;
  error: unknown;
  onSave: (body: { Severity: Severity | null; Reason?: string }) => void;
}

export function SeverityModal({ opened, onClose, finding, pending, error, onSave }: SeverityModalProps) {
  return (
    <Modal opened={opened} onClose={onClose} title="Override severity" centered>
      {opened && (
        <SeverityForm finding={finding} pending={pending} error={error} onSave={onSave} onCancel={onClose} />
      )}
    </Modal>
  );
}

function SeverityForm({
  finding,
  pending,
  error,
  onSave,
  onCancel,
}: Omit<SeverityModalProps, 'opened' | 'onClose'> & { onCancel: () => void }) {
  const overridden = finding.SeverityOverrideReason !== null || finding.Severity !== finding.ScannerSeverity;
  const [severity, setSeverity] = useState<string>(overridden ? finding.Severity : SCANNER);
  const [reason, setReason] = useState(finding.SeverityOverrideReason ?? '');
  const reasonError = error instanceof ApiError ? error.fieldError('/Reason') : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = reason.trim();
    onSave({
      Severity: severity === SCANNER ? null : (severity as Severity),
      Reason: trimmed || undefined,
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">
          The scanner rated this finding <strong>{finding.ScannerSeverity}</strong>. A different severity
          changes its risk score and due date.
        </Text>
        {!reasonError && <ErrorAlert error={error} />}
        <Select
          label="Severity"
          data={[
            { value: SCANNER, label: "Scanner's severity" },
            ...SEVERITIES.map((s) => ({ value: s, label: s })),
          ]}
          value={severity}
          onChange={(value) => value && setSeverity(value)}
          allowDeselect={false}
          description={`Scanner's severity: ${finding.ScannerSeverity}.`}
          data-autofocus
        />
        <TextInput
          label="Reason"
          description="Why this finding matters more or less here than the scanner says."
          maxLength={4000}
          value={reason}
          onChange={(e) => setReason(e.currentTarget.value)}
          error={reasonError}
        />
        <FormButtons onCancel={onCancel} pending={pending} submit="Save" />
      </Stack>
    </form>
  );
}
