import { Modal, Stack, Text, Textarea } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { MAX_RISK_ACCEPTANCE_DAYS, type StateChange } from '../../api/findings';
import { dayInput, dayInputToIso } from '../../components/Badges';
import { DayInput } from '../../components/DayInput';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';
import { dayExample } from '../../dates';

export type JustifiedState = 'FalsePositive' | 'RiskAccepted';

interface StateModalProps {
  /** Which decision; null keeps the dialog closed. */
  target: JustifiedState | null;
  onClose: () => void;
  /** What is decided on, e.g. "3 selected findings" or the finding's title. */
  subject: string;
  pending: boolean;
  error: unknown;
  onApply: (change: StateChange) => void;
}

const TITLES: Record<JustifiedState, string> = {
  FalsePositive: 'Mark as false positive',
  RiskAccepted: 'Accept risk',
};

/** Asks why (and, to accept a risk, until when) before a finding leaves the open work. */
export function StateModal({ target, onClose, subject, pending, error, onApply }: StateModalProps) {
  // The title stays while the dialog animates out.
  const [shown, setShown] = useState<JustifiedState>('FalsePositive');
  if (target && target !== shown) setShown(target);
  return (
    <Modal opened={target !== null} onClose={onClose} title={TITLES[shown]} centered>
      {target && (
        <StateForm
          target={target}
          subject={subject}
          pending={pending}
          error={error}
          onApply={onApply}
          onCancel={onClose}
        />
      )}
    </Modal>
  );
}

interface StateFormProps {
  target: JustifiedState;
  subject: string;
  pending: boolean;
  error: unknown;
  onApply: (change: StateChange) => void;
  onCancel: () => void;
}

function StateForm({ target, subject, pending, error, onApply, onCancel }: StateFormProps) {
  const [justification, setJustification] = useState('');
  const [until, setUntil] = useState(target === 'RiskAccepted' ? dayInput(90) : '');
  const [errors, setErrors] = useState<{ justification?: string; until?: string }>({});
  const min = dayInput(1);
  const max = dayInput(MAX_RISK_ACCEPTANCE_DAYS);

  const serverJustification = error instanceof ApiError ? error.fieldError('/Justification') : undefined;
  const serverUntil = error instanceof ApiError ? error.fieldError('/Until') : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = justification.trim();
    const found = {
      justification: text ? undefined : 'Say why, for whoever reviews this later.',
      until:
        target !== 'RiskAccepted'
          ? undefined
          : !until
            ? 'Choose the date the risk is accepted until.'
            : !dayInputToIso(until)
              ? `Write the date like ${dayExample()}.`
              : until < min || until > max
                ? `Choose a date from tomorrow to at most ${MAX_RISK_ACCEPTANCE_DAYS} days ahead.`
                : undefined,
    };
    setErrors(found);
    if (found.justification || found.until) return;
    onApply({
      State: target,
      Justification: text,
      Until: target === 'RiskAccepted' ? dayInputToIso(until) : undefined,
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">
          {target === 'RiskAccepted'
            ? `Accept the risk of ${subject}. Accepted findings leave the open work until the date below, then open again by themselves.`
            : `Mark ${subject} as false positive: the scanner was wrong, nothing needs fixing.`}
        </Text>
        {!serverJustification && !serverUntil && <ErrorAlert error={error} />}
        <Textarea
          label="Justification"
          required
          withAsterisk={false}
          autosize
          minRows={3}
          maxLength={4000}
          value={justification}
          onChange={(e) => setJustification(e.currentTarget.value)}
          error={errors.justification ?? serverJustification}
          data-autofocus
        />
        {target === 'RiskAccepted' && (
          <DayInput
            label="Until"
            description={`At most ${MAX_RISK_ACCEPTANCE_DAYS} days ahead.`}
            required
            min={min}
            max={max}
            value={until}
            onChange={(day) => {
              setUntil(day);
              setErrors((found) => ({ ...found, until: undefined }));
            }}
            error={errors.until ?? serverUntil}
          />
        )}
        <FormButtons onCancel={onCancel} pending={pending} submit="Apply" />
      </Stack>
    </form>
  );
}
