import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import type { registry } from '@platform/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { usePlatform } from '../../api';
import { ApiErrorAlert } from '../../ui';
import { usePublishVersion } from './agents-api';
import { withLifecycleStatus, type LifecycleStatus, type ManifestFormat } from './manifest-status';
import { okResponse } from './raw-fetch';

/**
 * Deprecate or revoke: a new patch version of the latest manifest with `metadata.status` set (spec 1),
 * published to the registry in the format the latest was published in.
 */
export function LifecycleActions({ agent, onChanged }: { agent: registry.Agent; onChanged: (result: registry.PublishResult) => void }) {
  const { send } = usePlatform();
  const [action, setAction] = useState<LifecycleStatus>();
  const [message, setMessage] = useState('');
  const publish = usePublishVersion(agent.namespace, agent.name);
  const change = useMutation({
    mutationFn: async (status: LifecycleStatus) => {
      const version = await okResponse(await send('registry', `/api/v1/agents/${agent.namespace}/${agent.name}/versions/latest`));
      const format = ((await version.json()) as registry.VersionDetail).format as ManifestFormat;
      const file = await okResponse(
        await send('registry', `/api/v1/agents/${agent.namespace}/${agent.name}/versions/latest/manifest`, {
          headers: { accept: format === 'json' ? 'application/json' : 'application/yaml' },
        }),
      );
      const next = withLifecycleStatus(await file.text(), format, status, { message: message.trim() || undefined });
      return publish.mutateAsync({ text: next.text, format });
    },
    onSuccess: (result) => {
      setAction(undefined);
      onChanged(result);
    },
  });
  const status = agent.status ?? 'active';

  return (
    <>
      <Group gap="xs">
        <Button variant="default" color="orange" disabled={status !== 'active' || !agent.latestVersion} onClick={() => setAction('deprecated')}>
          Deprecate
        </Button>
        <Button variant="default" color="red" disabled={status === 'revoked' || !agent.latestVersion} onClick={() => setAction('revoked')}>
          Revoke
        </Button>
      </Group>
      <Modal opened={action !== undefined} onClose={() => setAction(undefined)} title={action === 'revoked' ? 'Revoke the agent' : 'Deprecate the agent'}>
        <Stack>
          <Text size="sm">
            {action === 'revoked'
              ? 'A new version marked revoked (with the time of revocation) is published; callers should stop using the agent.'
              : 'A new version marked deprecated is published; the agent keeps working.'}{' '}
            Published versions never change.
          </Text>
          {action === 'deprecated' && (
            <Textarea label="Message" description="What to use instead (at most 500 characters)" maxLength={500} value={message} onChange={(event) => setMessage(event.currentTarget.value)} />
          )}
          {change.isError && <ApiErrorAlert error={change.error} title="Not changed" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAction(undefined)}>
              Cancel
            </Button>
            <Button color={action === 'revoked' ? 'red' : 'orange'} loading={change.isPending} onClick={() => action && change.mutate(action)}>
              {action === 'revoked' ? 'Revoke' : 'Deprecate'}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
