import {
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { type AssetChanges, splitList, useUpdateAsset } from '../../api/assets';
import { ApiError } from '../../api/client';
import type { AssetDetail } from '../../api/types';
import { ErrorAlert } from '../../components/QueryError';

const RATINGS = ['1', '2', '3', '4', '5'];
const RATING_OPTIONS = [{ value: '', label: 'Not set' }, ...RATINGS.map((r) => ({ value: r, label: r }))];

function ratingText(value: number | null): string {
  return value === null ? '' : String(value);
}

/** What the business knows of the asset: name, criticality, CIA ratings, exposure and tags. */
export function AssetEditCard({ asset, readOnly }: { asset: AssetDetail; readOnly: boolean }) {
  const update = useUpdateAsset(asset.Id);
  const [friendlyName, setFriendlyName] = useState(asset.FriendlyName ?? '');
  const [criticality, setCriticality] = useState<number | string>(asset.Criticality);
  const [confidentiality, setConfidentiality] = useState(ratingText(asset.Confidentiality));
  const [integrity, setIntegrity] = useState(ratingText(asset.Integrity));
  const [availability, setAvailability] = useState(ratingText(asset.Availability));
  const [internetFacing, setInternetFacing] = useState(asset.InternetFacing);
  const [tags, setTags] = useState(asset.Tags.join(', '));
  const [criticalityError, setCriticalityError] = useState<string>();

  const field = (path: string) =>
    update.error instanceof ApiError ? update.error.fieldError(path) : undefined;
  const rating = (text: string) => (text === '' ? null : Number(text));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typeof criticality !== 'number' || criticality < 1 || criticality > 5) {
      setCriticalityError('Choose a criticality from 1 to 5.');
      return;
    }
    setCriticalityError(undefined);
    const body: AssetChanges = {
      FriendlyName: friendlyName.trim() || null,
      Criticality: criticality,
      Confidentiality: rating(confidentiality),
      Integrity: rating(integrity),
      Availability: rating(availability),
      InternetFacing: internetFacing,
      Tags: splitList(tags),
    };
    update.mutate(body, {
      onSuccess: (saved) => {
        setTags(saved.Tags.join(', '));
        notifications.show({ color: 'green', message: 'Asset saved.' });
      },
    });
  };

  const tagsError =
    update.error instanceof ApiError
      ? update.error.problem.errors?.find((e) => e.path.startsWith('/Tags'))?.message
      : undefined;

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="asset-edit-title">
      <Title order={2} size="h4" id="asset-edit-title" mb="sm">
        Business context
      </Title>
      <form onSubmit={submit} noValidate aria-labelledby="asset-edit-title">
        <Stack gap="sm">
          <ErrorAlert
            error={
              update.error instanceof ApiError && update.error.problem.errors?.length ? null : update.error
            }
          />
          <TextInput
            label="Friendly name"
            description="Optional. Shown instead of the reported name."
            maxLength={255}
            value={friendlyName}
            onChange={(e) => setFriendlyName(e.currentTarget.value)}
            readOnly={readOnly}
            error={field('/FriendlyName')}
          />
          <NumberInput
            label="Criticality"
            description="1 (least) to 5 (most important to the business)."
            min={1}
            max={5}
            clampBehavior="strict"
            allowDecimal={false}
            value={criticality}
            onChange={setCriticality}
            readOnly={readOnly}
            error={criticalityError ?? field('/Criticality')}
          />
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
            <Select
              label="Confidentiality"
              data={RATING_OPTIONS}
              value={confidentiality}
              onChange={(value) => setConfidentiality(value ?? '')}
              allowDeselect={false}
              readOnly={readOnly}
              error={field('/Confidentiality')}
            />
            <Select
              label="Integrity"
              data={RATING_OPTIONS}
              value={integrity}
              onChange={(value) => setIntegrity(value ?? '')}
              allowDeselect={false}
              readOnly={readOnly}
              error={field('/Integrity')}
            />
            <Select
              label="Availability"
              data={RATING_OPTIONS}
              value={availability}
              onChange={(value) => setAvailability(value ?? '')}
              allowDeselect={false}
              readOnly={readOnly}
              error={field('/Availability')}
            />
          </SimpleGrid>
          <Switch
            label="Internet-facing"
            description="Reachable from the internet: raises the risk of its findings."
            checked={internetFacing}
            onChange={(e) => setInternetFacing(e.currentTarget.checked)}
            disabled={readOnly}
            mt={4}
          />
          <TextInput
            label="Tags"
            description="Comma separated, e.g. production, pci"
            value={tags}
            onChange={(e) => setTags(e.currentTarget.value)}
            readOnly={readOnly}
            error={tagsError}
          />
          {!readOnly && (
            <Group>
              <Button type="submit" loading={update.isPending}>
                Save
              </Button>
            </Group>
          )}
        </Stack>
      </form>
    </Card>
  );
}
