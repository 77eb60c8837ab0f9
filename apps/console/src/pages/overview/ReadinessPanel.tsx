import { Badge, Group, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { usePlatform } from '../../api';
import { DataTable, QueryState } from '../../ui';
import { readinessOfAll, type Readiness } from './readiness';

export function ReadinessPanel() {
  const platform = usePlatform();
  const query = useQuery({ queryKey: ['overview', 'readiness'], queryFn: () => readinessOfAll(platform), refetchInterval: 15_000 });
  return (
    <section aria-labelledby="readiness-title">
      <Title order={2} size="h4" id="readiness-title" mb="xs">
        Services
      </Title>
      <QueryState query={query}>
        {(rows) => (
          <DataTable<Readiness>
            rows={rows}
            rowKey={(row) => row.service}
            columns={[
              { key: 'service', header: 'Service', render: (row) => row.service },
              {
                key: 'status',
                header: 'Status',
                render: (row) => (
                  <Badge color={row.ready ? 'green' : 'red'} data-testid={`ready-${row.service}`}>
                    {row.ready ? 'ready' : 'failing'}
                  </Badge>
                ),
              },
              {
                key: 'checks',
                header: 'Checks',
                render: (row) => (
                  <Group gap={4}>
                    {Object.entries(row.checks).map(([name, state]) => (
                      <Badge key={name} variant="light" color={state === 'up' ? 'green' : 'red'}>
                        {name}: {state}
                      </Badge>
                    ))}
                    {row.problem}
                  </Group>
                ),
              },
            ]}
          />
        )}
      </QueryState>
    </section>
  );
}
