import { Button, type ButtonProps, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { useVerifyFindings, useVerifyTicket, type VerifyResult } from '../../api/verify';
import { IconShieldCheck } from '../../icons';
import { VerifyResultModal } from './VerifyResultModal';

const fail = (error: unknown) =>
  notifications.show({ color: 'red', title: 'Verify failed', message: errorMessage(error) });

/** The Source of findings that Rampart's own saved scans found: only those can be verified. */
const SCAN_SOURCES = new Set(['Rampart system scan', 'Rampart web scan']);

export const isFoundByScan = (source: string) => SCAN_SOURCES.has(source);

/** Why Verify cannot work on findings that no Rampart scan found. */
export const IMPORTED_REASON =
  'Only findings found by a Rampart scan can be verified: Rampart cannot scan again what another tool found.';

/** Verify on findings: scans again where they were found, then says what started and what not. */
export function VerifyFindingsButton({
  findingIds,
  titles,
  onDone,
  unavailable,
  ...button
}: {
  findingIds: string[];
  titles?: ReadonlyMap<string, string>;
  onDone?: () => void;
  /** Why Verify cannot work here (shown on the disabled button); undefined when it can. */
  unavailable?: string;
} & Pick<ButtonProps, 'size' | 'variant'>) {
  const verify = useVerifyFindings();
  const [result, setResult] = useState<VerifyResult | null>(null);
  return (
    <>
      <Tooltip label={unavailable} disabled={!unavailable} multiline w={320}>
        <Button
          leftSection={<IconShieldCheck size={14} />}
          loading={verify.isPending}
          disabled={findingIds.length === 0 || unavailable !== undefined}
          // Disabled buttons take no focus; the reason reaches screen readers this way.
          aria-description={unavailable}
          onClick={() => verify.mutate(findingIds, { onSuccess: setResult, onError: fail })}
          {...button}
        >
          Verify
        </Button>
      </Tooltip>
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

/** Verify on a ticket: every finding linked to it, named in the result by their titles. */
export function VerifyTicketButton({
  ticketId,
  titles,
}: {
  ticketId: string;
  titles?: ReadonlyMap<string, string>;
}) {
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
      <VerifyResultModal result={result} titles={titles} onClose={() => setResult(null)} />
    </>
  );
}
