import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { STATE_COLORS, stateBadgeColor } from '../workflows/graph/node-states';
import type { StepView } from './run-graph';

export type StepFlowNode = Node<StepView & Record<string, unknown>, 'step'>;
const handle = { width: 8, height: 8, background: 'var(--mantine-color-gray-6)' };

/** One step of a workers run: type, id, state as colour and badge, attempt, last error. */
export const StepNode = memo(function StepNode({ data, selected }: NodeProps<StepFlowNode>) {
  const color = STATE_COLORS[data.state] ?? 'gray';
  return (
    <Paper
      withBorder
      radius="md"
      p="xs"
      w={210}
      shadow={selected ? 'md' : 'xs'}
      data-testid={`step-${data.id}`}
      data-state={data.state}
      style={{ borderColor: `var(--mantine-color-${color}-6)`, borderWidth: 2, background: `var(--mantine-color-${color}-0)` }}
    >
      <Handle type="target" position={Position.Left} style={handle} isConnectable={false} />
      <Stack gap={2}>
        <Group justify="space-between" gap={4} wrap="nowrap">
          <Text size="xs" fw={700} c="gray.8" tt="uppercase">
            {data.type}
          </Text>
          <Badge size="xs" variant="filled" color={stateBadgeColor(data.state)} autoContrast data-testid={`step-state-${data.id}`}>
            {data.state}
          </Badge>
        </Group>
        <Text size="sm" ff="monospace" truncate>
          {data.id}
        </Text>
        <Text size="xs" c="gray.8">
          attempt {data.attempt}
        </Text>
        {data.lastError && (
          <Text size="xs" c="red.9" lineClamp={2}>
            {data.lastError}
          </Text>
        )}
      </Stack>
      <Handle type="source" position={Position.Right} style={handle} isConnectable={false} />
    </Paper>
  );
});

export const stepNodeTypes = { step: StepNode };
