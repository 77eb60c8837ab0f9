import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { NodeIssue } from '../form/schema-fields';
import type { ComponentNodeData } from './flow-graph';
import { formatDuration, STATE_COLORS, stateBadgeColor, type NodeRunView } from './node-states';

/** A canvas node: the engine node, plus what the page lays onto it (its run state, its validation issues). */
export type ComponentNodeView = ComponentNodeData & { run?: NodeRunView; issues?: NodeIssue[]; editable?: boolean };
export type ComponentFlowNode = Node<ComponentNodeView, 'component'>;

const handleStyle = { width: 12, height: 12, background: 'var(--mantine-color-gray-6)', border: '2px solid white' };

/** One node of a workflow on the canvas: its type and id, its state as colour and badge, its issues. */
export const ComponentNode = memo(function ComponentNode({ id, data, selected }: NodeProps<ComponentFlowNode>) {
  const state = data.run?.status;
  const color = data.issues?.length ? 'red' : state ? STATE_COLORS[state] : 'gray';
  const isCondition = data.component === 'Condition';
  return (
    <Paper
      withBorder
      shadow={selected ? 'md' : 'xs'}
      radius="md"
      p="xs"
      w={200}
      data-testid={`node-${id}`}
      data-state={state ?? 'none'}
      data-invalid={data.issues?.length ? 'true' : 'false'}
      style={{
        borderColor: `var(--mantine-color-${color}-${state || data.issues?.length ? 6 : 4})`,
        borderWidth: state || data.issues?.length || selected ? 2 : 1,
        background: state ? `var(--mantine-color-${color}-0)` : 'white',
      }}
    >
      <Handle type="target" position={Position.Left} style={handleStyle} data-testid={`handle-in-${id}`} />
      <Stack gap={2}>
        <Group justify="space-between" gap={4} wrap="nowrap">
          <Text size="xs" fw={700} c="gray.8" truncate>
            {data.component}
          </Text>
          {state && (
            <Badge size="xs" color={stateBadgeColor(state)} autoContrast variant="filled" data-testid={`node-state-${id}`}>
              {state}
            </Badge>
          )}
        </Group>
        <Text size="sm" ff="monospace" truncate>
          {id}
        </Text>
        {(data.run?.status === 'running' || data.run?.status === 'retrying') && data.run.startedAt && (
          <Text size="xs" c="gray.8">
            since {new Date(data.run.startedAt).toLocaleTimeString()}
            {data.run.nextAttemptIn !== undefined ? ` · next attempt in ${formatDuration(data.run.nextAttemptIn)}` : ''}
          </Text>
        )}
        {data.run && (data.run.duration !== undefined || data.run.attempts > 1) && (
          <Text size="xs" c="gray.8">
            {formatDuration(data.run.duration)}
            {data.run.attempts > 1 ? ` · ${data.run.attempts} attempts` : ''}
          </Text>
        )}
        {data.run?.error?.message && (
          <Text size="xs" c="red.9" lineClamp={2}>
            {data.run.error.code ? `${data.run.error.code}: ` : ''}
            {data.run.error.message}
          </Text>
        )}
        {data.issues?.map((issue) => (
          <Text key={`${issue.field}:${issue.message}`} size="xs" c="red.9" role="alert" data-testid={`node-issue-${id}`}>
            {issue.field}: {issue.message}
          </Text>
        ))}
      </Stack>
      {isCondition ? (
        <>
          <Handle
            type="source"
            id="true"
            position={Position.Right}
            style={{ ...handleStyle, top: '35%', background: 'var(--mantine-color-green-7)' }}
            data-testid={`handle-true-${id}`}
          />
          <Handle
            type="source"
            id="false"
            position={Position.Right}
            style={{ ...handleStyle, top: '70%', background: 'var(--mantine-color-red-7)' }}
            data-testid={`handle-false-${id}`}
          />
        </>
      ) : (
        <Handle type="source" position={Position.Right} style={handleStyle} data-testid={`handle-out-${id}`} />
      )}
    </Paper>
  );
});

export const nodeTypes = { component: ComponentNode };
