import { Code, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { FindingLocation } from '../../api/types';

/** Where on its asset a finding is: a port, an address, a file, a package, or the whole asset. */
export function describeLocation(location: FindingLocation): ReactNode {
  switch (location.Kind) {
    case 'Port':
      return <Code>{`${location.Port ?? '?'}/${location.Protocol ?? 'tcp'}`}</Code>;
    case 'Url':
      return (
        <Text component="span" size="sm" style={{ overflowWrap: 'anywhere' }}>
          <Code>{location.Url}</Code>
          {location.Parameter && (
            <>
              {' '}
              parameter <Code>{location.Parameter}</Code>
            </>
          )}
        </Text>
      );
    case 'File':
      return (
        <Code
          style={{ overflowWrap: 'anywhere' }}
        >{`${location.File ?? ''}${location.Line ? `:${location.Line}` : ''}`}</Code>
      );
    case 'Package':
      return <Code>{`${location.Package ?? ''}${location.Version ? `@${location.Version}` : ''}`}</Code>;
    default:
      return 'The whole asset';
  }
}

/**
 * Where a finding is, in a table cell: several findings of one vulnerability on one asset (one per
 * URL, port or package) differ only here.
 */
export function LocationCell({ location }: { location: FindingLocation }) {
  if (location.Kind === 'None')
    return (
      <Text component="span" size="sm" c="dimmed">
        Whole asset
      </Text>
    );
  return <>{describeLocation(location)}</>;
}

/** The same in words, for labels: "port 443/tcp", "the whole asset". */
export function locationText(location: FindingLocation): string {
  switch (location.Kind) {
    case 'Port':
      return `port ${location.Port ?? '?'}/${location.Protocol ?? 'tcp'}`;
    case 'Url':
      return location.Url ?? 'a web address';
    case 'File':
      return `${location.File ?? ''}${location.Line ? `:${location.Line}` : ''}`;
    case 'Package':
      return `${location.Package ?? ''}${location.Version ? `@${location.Version}` : ''}`;
    default:
      return 'the whole asset';
  }
}
