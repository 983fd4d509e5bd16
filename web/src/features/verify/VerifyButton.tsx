import { Button, type ButtonProps } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { useVerifyFindings, useVerifyTicket, type VerifyResult } from '../../api/verify';
import { IconShieldCheck } from '../../icons';
import { VerifyResultModal } from './VerifyResultModal';

const fail = (error: unknown) =>
  notifications.show({ color: 'red', title: 'Verify failed', message: errorMessage(error) });

/** Verify on findings: scans again where they were found, then says what started and what not. */
export function VerifyFindingsButton({
  findingIds,
  titles,
  onDone,
  ...button
}: {
  findingIds: string[];
  titles?: ReadonlyMap<string, string>;
  onDone?: () => void;
} & Pick<ButtonProps, 'size' | 'variant'>) {
  const verify = useVerifyFindings();
  const [result, setResult] = useState<VerifyResult | null>(null);
  return (
    <>
      <Button
        leftSection={<IconShieldCheck size={14} />}
        loading={verify.isPending}
        disabled={findingIds.length === 0}
        onClick={() => verify.mutate(findingIds, { onSuccess: setResult, onError: fail })}
        {...button}
      >
        Verify
      </Button>
      <VerifyResultModal
        result={result}
        titles={titles}
        onClose={() => {
          setResult(null);
          onDone?.();
        }}
      />
    </>
  );
}

/** Verify on a ticket: every finding linked to it. */
export function VerifyTicketButton({ ticketId }: { ticketId: string }) {
  const verify = useVerifyTicket(ticketId);
  const [result, setResult] = useState<VerifyResult | null>(null);
  return (
    <>
      <Button
        variant="default"
        leftSection={<IconShieldCheck size={16} />}
        loading={verify.isPending}
        onClick={() => verify.mutate(undefined, { onSuccess: setResult, onError: fail })}
      >
        Verify
      </Button>
      <VerifyResultModal result={result} onClose={() => setResult(null)} />
    </>
  );
}
