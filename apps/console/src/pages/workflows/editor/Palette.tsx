import { ActionIcon, Group, Paper, ScrollArea, Stack, Text, Title, Tooltip } from '@mantine/core';
import type { workflowEngine } from '@platform/contracts';
import type { DragEvent } from 'react';

/** The drag payload type: a component type dropped onto the canvas becomes a new node. */
export const COMPONENT_MIME = 'application/x-workflow-component';
const GROUPS = ['AI', 'Logic', 'MCP', 'CMS'] as const;

/** The component library, by group: drag an entry onto the canvas, or add it with its button. */
export function Palette({ components, onAdd }: { components: readonly workflowEngine.ComponentInfo[]; onAdd: (type: string) => void }) {
  const onDragStart = (event: DragEvent, type: string) => {
    event.dataTransfer.setData(COMPONENT_MIME, type);
    event.dataTransfer.effectAllowed = 'move';
  };
  return (
    <Paper withBorder p="xs" w={220} h="100%" component="aside" aria-label="Component library">
      <Title order={2} size="h5" mb="xs">
        Components
      </Title>
      <ScrollArea h="calc(100% - 32px)" type="auto">
        <Stack gap="sm">
          {GROUPS.map((group) => {
            const members = components.filter((component) => component.group === group);
            if (!members.length) return null;
            return (
              <Stack key={group} gap={4}>
                <Text size="xs" fw={700} c="gray.7" tt="uppercase">
                  {group}
                </Text>
                {members.map((component) => (
                  <Paper
                    key={component.type}
                    withBorder
                    radius="sm"
                    px="xs"
                    py={4}
                    draggable
                    onDragStart={(event: DragEvent) => onDragStart(event, component.type)}
                    style={{ cursor: 'grab' }}
                    data-testid={`palette-${component.type}`}
                  >
                    <Group justify="space-between" gap={4} wrap="nowrap">
                      <Tooltip label={component.description} openDelay={400} multiline w={220}>
                        <Text size="sm" truncate>
                          {component.type}
                        </Text>
                      </Tooltip>
                      <ActionIcon size="sm" variant="subtle" color="blue.8" aria-label={`Add ${component.type}`} onClick={() => onAdd(component.type)}>
                        +
                      </ActionIcon>
                    </Group>
                  </Paper>
                ))}
              </Stack>
            );
          })}
        </Stack>
      </ScrollArea>
    </Paper>
  );
}
