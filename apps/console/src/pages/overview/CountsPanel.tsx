import { Card, Loader, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { describeError, usePlatform } from '../../api';
import { figures, type FigureName } from './counts';

const TILES: Array<{ name: FigureName; label: string }> = [
  { name: 'agents', label: 'Agents in the registry' },
  { name: 'liveMeshAgents', label: 'Live mesh agents' },
  { name: 'workflows', label: 'Workflows' },
  { name: 'runningRuns', label: 'Runs (workers)' },
  { name: 'spansToday', label: 'Spans today' },
  { name: 'failedLastHour', label: 'Failed executions, last hour' },
];

function CountTile({ name, label }: { name: FigureName; label: string }) {
  const platform = usePlatform();
  const query = useQuery({ queryKey: ['overview', 'figure', name], queryFn: () => figures[name](platform), refetchInterval: 30_000 });
  const error = query.isError ? describeError(query.error) : undefined;
  return (
    <Card withBorder padding="md" data-testid={`figure-${name}`}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      {query.isPending ? (
        <Loader size="xs" mt="xs" aria-label={`Loading ${label}`} />
      ) : error ? (
        <Text size="sm" c="red.8" mt="xs" role="status">
          {error.title}: {error.message}
        </Text>
      ) : (
        <>
          <Text fz={28} fw={700} data-testid={`figure-${name}-value`}>
            {query.data!.value.toLocaleString('en')}
          </Text>
          {query.data!.note && (
            <Text size="xs" c="dimmed">
              {query.data!.note}
            </Text>
          )}
        </>
      )}
    </Card>
  );
}

export function CountsPanel() {
  return (
    <section aria-labelledby="counts-title">
      <Title order={2} size="h4" id="counts-title" mb="xs">
        The platform
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
        {TILES.map((tile) => (
          <CountTile key={tile.name} {...tile} />
        ))}
      </SimpleGrid>
    </section>
  );
}
