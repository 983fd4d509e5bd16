import { Text } from '@mantine/core';
import { NoteBox } from './NoteBox';

export interface RunRefusals {
  Count: number;
  Addresses: { Address: string; Rule: string; Message: string }[];
}

/** The addresses the scan node refused to send anything to, each with why: never only in its log. */
export function RefusedAddresses({ refused }: { refused: RunRefusals }) {
  if (refused.Count === 0) return null;
  const more = refused.Count - refused.Addresses.length;
  return (
    <NoteBox title={`Refused, not scanned (${refused.Count.toLocaleString()})`} testId="refused-addresses">
      {refused.Addresses.map((a) => (
        <Text size="sm" key={a.Address}>
          <Text span ff="monospace">
            {a.Address}
          </Text>{' '}
          ({a.Rule}): {a.Message}
        </Text>
      ))}
      {more > 0 && (
        <Text size="sm" c="dimmed">
          and {more.toLocaleString()} more
        </Text>
      )}
    </NoteBox>
  );
}
