import { Button, Code, Group, Paper, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core';
import type { workflowEngine } from '@platform/contracts';
import { useEffect, useState } from 'react';
import { ParamsForm } from '../form/ParamsForm';
import type { NodeIssue } from '../form/schema-fields';
import { nodeIdProblem } from '../graph/flow-graph';

/** The selected node: its id (renamable), what its component does and offers, its parameters. */
export function NodeInspector({
  nodeId,
  component,
  params,
  issues,
  otherIds,
  onParams,
  onRename,
  onDelete,
}: {
  nodeId: string;
  component: workflowEngine.ComponentInfo | undefined;
  params: Record<string, unknown>;
  issues: readonly NodeIssue[];
  otherIds: readonly string[];
  onParams: (params: Record<string, unknown>) => void;
  onRename: (id: string) => void;
  onDelete: () => void;
}) {
  const [id, setId] = useState(nodeId);
  useEffect(() => setId(nodeId), [nodeId]);
  const problem = id === nodeId ? undefined : nodeIdProblem(id, otherIds);
  const general = issues.filter((issue) => !component || !(issue.field.split(/[.[]/)[0] in ((component.inputSchema.properties as object) ?? {})));
  return (
    <Paper withBorder p="sm" w={320} h="100%" component="aside" aria-label={`Node ${nodeId}`}>
      <ScrollArea h="100%" type="auto">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={2} size="h5">
              {component?.type ?? 'Unknown component'}
            </Title>
            <Button size="compact-xs" variant="default" c="red.9" onClick={onDelete}>
              Delete node
            </Button>
          </Group>
          {component && (
            <Text size="xs" c="gray.7">
              {component.description}
            </Text>
          )}
          <TextInput
            label="Node id"
            value={id}
            error={problem}
            onChange={(event) => setId(event.currentTarget.value)}
            onBlur={() => {
              if (id !== nodeId && !problem) onRename(id);
            }}
            data-testid="node-id"
          />
          {component && component.outputs.length > 0 && (
            <Text size="xs" c="gray.7">
              Outputs:{' '}
              {component.outputs.map((output) => (
                <Code key={output} mr={4}>
                  {`{{${nodeId}.${output}}}`}
                </Code>
              ))}
            </Text>
          )}
          {general.map((issue) => (
            <Text key={`${issue.field}:${issue.message}`} size="sm" c="red.9" role="alert">
              {issue.field}: {issue.message}
            </Text>
          ))}
          {component && <ParamsForm nodeId={nodeId} schema={component.inputSchema} params={params} issues={issues} onChange={onParams} />}
        </Stack>
      </ScrollArea>
    </Paper>
  );
}
