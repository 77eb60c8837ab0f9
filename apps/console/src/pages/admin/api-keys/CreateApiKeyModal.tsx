import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { auth } from '@platform/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { usePlatform } from '../../../api';
import { ApiErrorAlert, fieldErrors, splitList } from '../../../ui';
import { authApi, type CreateApiKey, type IssuedApiKey } from '../auth-api';

const EMPTY = { service: '', permissions: '', expiresAt: '' };

/** Issues a key and shows its secret once: auth keeps only a hash, so it cannot be shown again. */
export function CreateApiKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const platform = usePlatform();
  const queryClient = useQueryClient();
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [issued, setIssued] = useState<IssuedApiKey>();
  const create = useMutation({
    mutationFn: (body: CreateApiKey) => authApi.createApiKey(platform, body),
    onSuccess: (key) => {
      setIssued(key);
      setForm(EMPTY);
      void queryClient.invalidateQueries({ queryKey: ['admin', 'api-keys'] });
    },
  });

  const close = () => {
    // The secret leaves memory with the dialog.
    setIssued(undefined);
    create.reset();
    onClose();
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = auth.CreateApiKeyRequest.safeParse({
      service: form.service,
      permissions: splitList(form.permissions),
      ...(form.expiresAt ? { expiresAt: toIsoOrRaw(form.expiresAt) } : {}),
    });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    create.mutate(parsed.data);
  };

  return (
    <Modal opened={opened} onClose={close} title={issued ? 'API key issued' : 'New API key'} size="lg">
      {issued ? (
        <Stack>
          <Alert color="orange" title="Copy the key now">
            This is the only time the key of <b>{issued.service}</b> is shown: auth keeps only its hash.
          </Alert>
          <Code block data-testid="issued-api-key">
            {issued.key}
          </Code>
          <Group justify="flex-end">
            <CopyButton value={issued.key}>{({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : 'Copy the key'}</Button>}</CopyButton>
            <Button variant="default" onClick={close}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack>
            <TextInput label="Service" description="Lowercase letters, digits and hyphens" required value={form.service} onChange={(e) => setForm({ ...form, service: e.currentTarget.value })} error={errors.service} />
            <TextInput
              label="Permissions"
              description="<resource>:<action>, separated by spaces or commas"
              required
              value={form.permissions}
              onChange={(e) => setForm({ ...form, permissions: e.currentTarget.value })}
              error={errors.permissions}
            />
            <TextInput
              label="Expires at"
              description="Optional: a date and time, e.g. 2027-01-31T12:00:00Z"
              value={form.expiresAt}
              onChange={(e) => setForm({ ...form, expiresAt: e.currentTarget.value })}
              error={errors.expiresAt}
            />
            {create.isError && <ApiErrorAlert error={create.error} />}
            <Text size="xs" c="dimmed">
              The key is shown once, after it is issued.
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Issue the key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** A date typed without a zone is taken as UTC; anything unreadable goes to the schema as typed. */
function toIsoOrRaw(value: string): string {
  const time = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}
