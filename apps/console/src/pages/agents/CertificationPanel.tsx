import { Badge, Button, Group, Paper, Stack, Table, Text } from '@mantine/core';
import type { registry } from '@platform/contracts';
import { ApiErrorAlert, QueryState } from '../../ui';
import { useCertifications, useRequestCertification } from './agents-api';

const statusColor: Record<string, string> = { passed: 'teal', failed: 'red', error: 'red', queued: 'gray', running: 'blue' };
const outcomeColor: Record<string, string> = { pass: 'teal', fail: 'red', warn: 'orange', skip: 'gray' };

/** The registry's certification runs of the agent, newest first, with each check's outcome. */
export function CertificationPanel({ namespace, name, latest }: { namespace: string; name: string; latest: string | null }) {
  const certifications = useCertifications(namespace, name);
  const request = useRequestCertification(namespace, name);
  return (
    <Stack>
      <Group>
        <Button size="sm" onClick={() => request.mutate(undefined)} loading={request.isPending} disabled={!latest}>
          Certify {latest ?? 'the latest version'}
        </Button>
      </Group>
      {request.isError && <ApiErrorAlert error={request.error} title="Not requested" />}
      <QueryState query={certifications}>
        {(page) =>
          page.items.length === 0 ? (
            <Text c="dimmed" size="sm">
              No certification yet.
            </Text>
          ) : (
            <Stack>
              {page.items.map((certification) => (
                <CertificationRun key={certification.id} certification={certification} />
              ))}
            </Stack>
          )
        }
      </QueryState>
    </Stack>
  );
}

function CertificationRun({ certification }: { certification: registry.Certification }) {
  return (
    <Paper withBorder p="sm">
      <Group justify="space-between" mb="xs">
        <Group gap="xs">
          <Text fw={600}>Version {certification.version}</Text>
          <Badge color={statusColor[certification.status]}>{certification.status}</Badge>
        </Group>
        <Text size="xs" c="dimmed">
          requested {new Date(certification.requestedAt).toLocaleString()} by {certification.requestedBy}
        </Text>
      </Group>
      {certification.error && (
        <Text c="red.8" size="sm">
          {certification.error}
        </Text>
      )}
      {certification.checks.length > 0 && (
        <Table verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Check</Table.Th>
              <Table.Th scope="col">Outcome</Table.Th>
              <Table.Th scope="col">Detail</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {certification.checks.map((check) => (
              <Table.Tr key={check.id}>
                <Table.Td>{check.name}</Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="light" color={outcomeColor[check.outcome]}>
                    {check.outcome}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{check.message}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
