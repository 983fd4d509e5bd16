import { SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { useScanGroups } from '../../api/scangroups';

export type ScopeKind = 'Organization' | 'Tag' | 'ScanGroup';

export interface ScopeValue {
  kind: ScopeKind;
  tag: string;
  scanGroupId: string | null;
}

export const EMPTY_SCOPE: ScopeValue = { kind: 'Organization', tag: '', scanGroupId: null };

/** The scope fields of a request body: a tag or a scan group (never both), or the whole organisation. */
export function scopeBody(scope: ScopeValue): { Tag?: string; ScanGroupId?: string } {
  if (scope.kind === 'Tag' && scope.tag.trim()) return { Tag: scope.tag.trim() };
  if (scope.kind === 'ScanGroup' && scope.scanGroupId) return { ScanGroupId: scope.scanGroupId };
  return {};
}

/** What a report is about: the organisation, the assets with a tag, or a scan group. */
export function ScopeFields({
  value,
  onChange,
  error,
}: {
  value: ScopeValue;
  onChange: (next: ScopeValue) => void;
  error?: string;
}) {
  const groups = useScanGroups();
  const options = (groups.data?.pages ?? []).flatMap((p) =>
    p.Items.map((g) => ({ value: g.Id, label: g.ScanGroupName })),
  );
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500} id="scope-label">
        Scope
      </Text>
      <SegmentedControl
        aria-labelledby="scope-label"
        value={value.kind}
        onChange={(kind) => onChange({ ...value, kind: kind as ScopeKind })}
        data={[
          { value: 'Organization', label: 'Organisation' },
          { value: 'Tag', label: 'Tag' },
          { value: 'ScanGroup', label: 'Scan group' },
        ]}
      />
      {value.kind === 'Tag' && (
        <TextInput
          label="Tag name"
          placeholder="prod"
          value={value.tag}
          onChange={(e) => onChange({ ...value, tag: e.currentTarget.value })}
          error={error}
          required
        />
      )}
      {value.kind === 'ScanGroup' && (
        <Select
          label="Scan group"
          placeholder={options.length ? 'Pick a scan group' : 'No scan groups yet'}
          data={options}
          value={value.scanGroupId}
          onChange={(scanGroupId) => onChange({ ...value, scanGroupId })}
          error={error}
          searchable
          required
        />
      )}
    </Stack>
  );
}
