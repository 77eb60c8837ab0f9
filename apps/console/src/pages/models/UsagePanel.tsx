import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Group, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { DataTable, QueryState } from '../../ui';
import { useUsage } from './models-api';
import type { DayRow, ModelTotals } from './usage-aggregation';

const COLORS = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.7', 'indigo.6', 'yellow.7', 'red.6'];
const dollars = (value: number) => `$${value.toFixed(value !== 0 && value < 0.01 ? 6 : 2)}`;

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
    </Paper>
  );
}

/** The caller's model calls: cost and tokens per model and per day. */
export function UsagePanel() {
  const [days, setDays] = useState('7');
  const usage = useUsage(Number(days));
  return (
    <Stack>
      <SegmentedControl
        aria-label="Period"
        value={days}
        onChange={setDays}
        data={[
          { value: '7', label: '7 days' },
          { value: '30', label: '30 days' },
          { value: '90', label: '90 days' },
        ]}
        w={300}
      />
      <QueryState query={usage}>
        {(data) => {
          // Recharts reads a dotted key as a path (`llama3.2:latest`): the series get plain keys and keep the name as label.
          const series = data.series.models.map((model, index) => ({ name: `model${index}`, label: model, color: COLORS[index % COLORS.length] }));
          const keyed = (rows: DayRow[]) =>
            rows.map((row) => Object.fromEntries([['day', row.day], ...data.series.models.map((model, index) => [`model${index}`, row[model]])]));
          return (
            <Stack>
              <SimpleGrid cols={{ base: 2, md: 4 }}>
                <Figure label="Calls" value={data.totals.calls.toLocaleString()} />
                <Figure label="Prompt tokens" value={data.totals.promptTokens.toLocaleString()} />
                <Figure label="Completion tokens" value={data.totals.completionTokens.toLocaleString()} />
                <Figure label="Cost" value={dollars(data.totals.cost)} />
              </SimpleGrid>
              {data.counted < data.total && (
                <Text size="xs" c="dimmed">
                  The charts show the latest {data.counted.toLocaleString()} of {data.total.toLocaleString()} calls; the figures above count them all.
                </Text>
              )}
              <SimpleGrid cols={{ base: 1, lg: 2 }}>
                <Paper withBorder p="md">
                  <Title order={2} size="h5" mb="sm">
                    Cost per day
                  </Title>
                  <BarChart h={240} data={keyed(data.series.costByDay)} dataKey="day" type="stacked" series={series} valueFormatter={dollars} withLegend={series.length > 0} aria-label="Cost per day and model" />
                </Paper>
                <Paper withBorder p="md">
                  <Title order={2} size="h5" mb="sm">
                    Tokens per day
                  </Title>
                  <BarChart
                    h={240}
                    data={keyed(data.series.tokensByDay)}
                    dataKey="day"
                    type="stacked"
                    series={series}
                    valueFormatter={(value) => value.toLocaleString()}
                    withLegend={series.length > 0}
                    aria-label="Tokens per day and model"
                  />
                </Paper>
              </SimpleGrid>
              <Group>
                <Title order={2} size="h5">
                  Per model
                </Title>
              </Group>
              <DataTable<ModelTotals>
                rows={data.series.byModel}
                rowKey={(row) => row.model}
                empty="No model call in this period."
                columns={[
                  { key: 'model', header: 'Model', render: (row) => row.model },
                  { key: 'calls', header: 'Calls', render: (row) => row.calls.toLocaleString() },
                  { key: 'prompt', header: 'Prompt tokens', render: (row) => row.promptTokens.toLocaleString() },
                  { key: 'completion', header: 'Completion tokens', render: (row) => row.completionTokens.toLocaleString() },
                  { key: 'cost', header: 'Cost', render: (row) => dollars(row.cost) },
                ]}
              />
            </Stack>
          );
        }}
      </QueryState>
    </Stack>
  );
}
