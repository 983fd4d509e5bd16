import { Button, Group, Tooltip } from '@mantine/core';
import type { ReactNode } from 'react';
import type { FindingState } from '../../api/types';
import type { JustifiedState } from './StateModal';

/** The moves a person may make from the finding's state, and the severity override. */
export function FindingActions({
  allowed,
  canAccept,
  moving,
  direct,
  ask,
  onOverride,
  verify,
}: {
  /** The states the finding may move to from its own. */
  allowed: readonly FindingState[];
  /** Accepting a risk needs a Manager. */
  canAccept: boolean;
  /** A move without a dialog is under way. */
  moving: boolean;
  /** Moves at once. */
  direct: (state: FindingState) => void;
  /** Moves after a dialog asks why. */
  ask: (target: JustifiedState) => void;
  onOverride: () => void;
  /** Verify, for findings of Rampart's own scans. */
  verify?: ReactNode;
}) {
  return (
    <Group gap="sm" role="group" aria-label="Actions">
      {allowed.includes('Fixed') && (
        <Button onClick={() => direct('Fixed')} loading={moving}>
          Mark fixed
        </Button>
      )}
      {allowed.includes('Reopened') && (
        <Button variant="default" onClick={() => direct('Reopened')} loading={moving}>
          Reopen
        </Button>
      )}
      {allowed.includes('FalsePositive') && (
        <Button variant="default" onClick={() => ask('FalsePositive')}>
          False positive…
        </Button>
      )}
      {allowed.includes('RiskAccepted') && (
        <Tooltip label="Only Managers and Admins may accept a risk" disabled={canAccept}>
          <Button
            variant="default"
            onClick={() => ask('RiskAccepted')}
            disabled={!canAccept}
            aria-description={canAccept ? undefined : 'Only Managers and Admins may accept a risk'}
          >
            Accept risk…
          </Button>
        </Tooltip>
      )}
      {allowed.includes('Open') && (
        <Button variant="default" onClick={() => direct('Open')} loading={moving}>
          Back to open
        </Button>
      )}
      {verify}
      <Button variant="subtle" onClick={onOverride}>
        Override severity…
      </Button>
    </Group>
  );
}
