import { Modal, NumberInput, Select, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { type NewAsset, splitList, useCreateAsset } from '../../api/assets';
import { ApiError } from '../../api/client';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';
import { ASSET_KIND_LABELS } from '../../labels';

type Kind = 'Host' | 'WebApplication';

export function AddAssetModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Add asset" centered>
      {opened && <AddAssetForm onDone={onClose} />}
    </Modal>
  );
}

interface Errors {
  ips?: string;
  fqdn?: string;
  hostname?: string;
  url?: string;
  name?: string;
  criticality?: string;
  tags?: string;
}

function AddAssetForm({ onDone }: { onDone: () => void }) {
  const create = useCreateAsset();
  const [kind, setKind] = useState<Kind>('Host');
  const [ips, setIps] = useState('');
  const [fqdn, setFqdn] = useState('');
  const [hostname, setHostname] = useState('');
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [criticality, setCriticality] = useState<number | string>(3);
  const [tags, setTags] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<unknown>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const body: NewAsset = {
      Kind: kind,
      Name: name.trim() || undefined,
      Criticality: typeof criticality === 'number' ? criticality : undefined,
      Tags: splitList(tags),
    };
    const found: Errors = {};
    if (kind === 'Host') {
      body.IpAddresses = splitList(ips);
      body.Fqdn = fqdn.trim() || undefined;
      body.Hostname = hostname.trim() || undefined;
      if (!body.IpAddresses.length && !body.Fqdn && !body.Hostname) {
        found.ips = 'Give at least an IP address, an FQDN or a hostname.';
      }
    } else {
      body.Url = url.trim() || undefined;
      if (!body.Url) found.url = 'Enter the address of the application.';
      else if (!/^https?:\/\/\S+$/i.test(body.Url))
        found.url = 'Enter a URL starting with http:// or https://.';
    }
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;

    create.mutate(body, {
      onSuccess: ({ asset, merged }) => {
        notifications.show({
          color: merged ? 'blue' : 'green',
          message: merged
            ? `Merged into existing asset “${asset.FriendlyName || asset.Name}”.`
            : `Asset “${asset.FriendlyName || asset.Name}” added.`,
        });
        onDone();
      },
      onError: (error) => {
        const byField: Errors = {};
        if (error instanceof ApiError) {
          byField.ips =
            error.fieldError('/IpAddresses') ??
            error.problem.errors?.find((e) => e.path.startsWith('/IpAddresses/'))?.message;
          byField.fqdn = error.fieldError('/Fqdn');
          byField.hostname = error.fieldError('/Hostname');
          byField.url = error.fieldError('/Url');
          byField.name = error.fieldError('/Name');
          byField.criticality = error.fieldError('/Criticality');
          byField.tags = error.problem.errors?.find((e) => e.path.startsWith('/Tags'))?.message;
        }
        setErrors(byField);
        if (!Object.values(byField).some(Boolean)) setFormError(error);
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={formError} />
        <Select
          label="Kind"
          data={[
            { value: 'Host', label: 'Host' },
            { value: 'WebApplication', label: ASSET_KIND_LABELS.WebApplication },
          ]}
          value={kind}
          onChange={(value) => value && setKind(value as Kind)}
          allowDeselect={false}
          data-autofocus
        />
        {kind === 'Host' ? (
          <>
            <TextInput
              label="IP addresses"
              description="Comma separated, e.g. 10.0.0.5, 2001:db8::5"
              spellCheck={false}
              value={ips}
              onChange={(e) => setIps(e.currentTarget.value)}
              error={errors.ips}
            />
            <TextInput
              label="FQDN"
              description="Optional, e.g. web01.example.com"
              spellCheck={false}
              maxLength={253}
              value={fqdn}
              onChange={(e) => setFqdn(e.currentTarget.value)}
              error={errors.fqdn}
            />
            <TextInput
              label="Hostname"
              description="Optional, e.g. web01"
              spellCheck={false}
              maxLength={253}
              value={hostname}
              onChange={(e) => setHostname(e.currentTarget.value)}
              error={errors.hostname}
            />
          </>
        ) : (
          <TextInput
            label="URL"
            description="The base address, e.g. https://shop.example.com"
            type="url"
            spellCheck={false}
            maxLength={2048}
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={errors.url}
          />
        )}
        <TextInput
          label="Name"
          description="Optional. Without one, the best address is used."
          maxLength={255}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
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
          error={errors.criticality}
        />
        <TextInput
          label="Tags"
          description="Optional, comma separated, e.g. production, pci"
          value={tags}
          onChange={(e) => setTags(e.currentTarget.value)}
          error={errors.tags}
        />
        <FormButtons onCancel={onDone} pending={create.isPending} submit="Add asset" />
      </Stack>
    </form>
  );
}
