import { Modal } from '@mantine/core';
import type { SecondStep, Session, SessionOrganization } from '../api/types';
import { EnrolStep, SecondFactorStep } from '../features/signin/SecondStep';

/** The second step an organisation asks for before a switch into it, as at sign-in, in a dialog. */
export default function SwitchSecondStep({
  step,
  target,
  onRestart,
  onSignedIn,
}: {
  step: SecondStep;
  target: SessionOrganization;
  /** Given up (null) or expired (why): the session stays where it was. */
  onRestart: (why: string | null) => void;
  onSignedIn: (session: Session) => void;
}) {
  const steps = { challenge: step, onRestart, onSignedIn, restartLabel: 'Cancel' };
  return (
    <Modal
      opened
      onClose={() => onRestart(null)}
      title={`Switch to ${target.Name}`}
      centered
      // Recovery codes shown once must not be lost to a stray click.
      closeOnClickOutside={false}
    >
      {/* A new challenge, a new form. */}
      {step.Step === 'Code' && <SecondFactorStep key={step.ChallengeToken} {...steps} />}
      {step.Step === 'Enrol' && <EnrolStep key={step.ChallengeToken} {...steps} />}
    </Modal>
  );
}
