import { Anchor, Badge, CloseButton, Code, Group, Paper, ScrollArea, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { formatDuration } from '../waterfall/axis';
import type { WaterfallRow } from '../waterfall/layout';
import { traceHref } from '../links';

interface SpanEvent {
  name: string;
  time?: string;
  time_unix_nano?: string;
  attributes?: Record<string, unknown>;
}
interface SpanLink {
  trace_id: string;
  span_id: string;
  attributes?: Record<string, unknown>;
}

/** A span's details beside the waterfall: what it is, its attributes, events, links and resource. */
export function SpanDetails({ row, traceStartUnixNano, onClose }: { row: WaterfallRow; traceStartUnixNano: string; onClose: () => void }) {
  const span = row.span;
  const events = span.events as SpanEvent[];
  const links = span.links as SpanLink[];
  return (
    <Paper withBorder p="sm" component="aside" aria-labelledby="span-details-title" data-testid="span-details" className="span-details">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Title order={2} size="h5" id="span-details-title" style={{ wordBreak: 'break-word' }}>
            {span.name}
          </Title>
          <Group gap={6}>
            <Badge variant="dot" color="gray">
              {row.service}
            </Badge>
            <Badge variant="outline" color="gray.8">
              {span.kind}
            </Badge>
            {span.status.code === 'ERROR' ? (
              <Badge color="red.9">error</Badge>
            ) : (
              <Badge variant="outline" color="gray.8">
                {span.status.code}
              </Badge>
            )}
          </Group>
        </Stack>
        <CloseButton aria-label="Close the span details" onClick={onClose} />
      </Group>
      {span.status.message && (
        <Text size="sm" c="red.9" mt="xs">
          {span.status.message}
        </Text>
      )}
      <Table mt="sm" withRowBorders={false} verticalSpacing={2} fz="sm">
        <Table.Tbody>
          <Fact label="Duration" value={formatDuration(row.durationMs)} />
          <Fact label="Starts at" value={`+${formatDuration(row.startMs)} (${span.start_time})`} />
          <Fact label="Span id" value={<Code>{span.span_id}</Code>} />
          <Fact label="Parent" value={span.parent_span_id ? <Code>{span.parent_span_id}</Code> : 'none (root)'} />
          <Fact label="Project" value={span.project} />
          {row.orphan && <Fact label="Note" value="its parent span is not in this trace" />}
          {row.clamped && <Fact label="Note" value="its clock disagrees with its parent's; the bar is drawn inside the parent's" />}
          {row.cycle && <Fact label="Note" value="its parent chain loops back to it; the loop is cut here" />}
        </Table.Tbody>
      </Table>
      <Tabs defaultValue="attributes" mt="sm" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="attributes">Attributes ({Object.keys(span.attributes).length})</Tabs.Tab>
          <Tabs.Tab value="events">Events ({events.length})</Tabs.Tab>
          <Tabs.Tab value="links">Links ({links.length})</Tabs.Tab>
          <Tabs.Tab value="resource">Resource</Tabs.Tab>
        </Tabs.List>
        <ScrollArea.Autosize mah="calc(100vh - 420px)" mt="xs" type="auto">
          <Tabs.Panel value="attributes">
            <Attributes values={span.attributes} label="Span attributes" />
          </Tabs.Panel>
          <Tabs.Panel value="events">
            {events.length === 0 ? (
              <Text size="sm">No events.</Text>
            ) : (
              <Stack gap="xs">
                {events.map((event, index) => (
                  <div key={index}>
                    <Text size="sm" fw={600}>
                      {event.name}{' '}
                      <Text span size="xs" c="gray.8">
                        {eventOffset(event, traceStartUnixNano)}
                      </Text>
                    </Text>
                    <Attributes values={event.attributes ?? {}} label={`Attributes of event ${event.name}`} />
                  </div>
                ))}
              </Stack>
            )}
          </Tabs.Panel>
          <Tabs.Panel value="links">
            {links.length === 0 ? (
              <Text size="sm">No links.</Text>
            ) : (
              <Stack gap="xs">
                {links.map((link) => (
                  <div key={`${link.trace_id}:${link.span_id}`}>
                    <Anchor component={Link} to={traceHref(link.trace_id)} size="sm">
                      trace {link.trace_id.slice(0, 12)}…, span {link.span_id}
                    </Anchor>
                    <Attributes values={link.attributes ?? {}} label="Link attributes" />
                  </div>
                ))}
              </Stack>
            )}
          </Tabs.Panel>
          <Tabs.Panel value="resource">
            <Attributes values={span.resource.attributes} label="Resource attributes" />
            {span.scope.name && (
              <Text size="xs" c="gray.8" mt="xs">
                Instrumentation scope: {span.scope.name}
                {span.scope.version ? ` ${span.scope.version}` : ''}
              </Text>
            )}
          </Tabs.Panel>
        </ScrollArea.Autosize>
      </Tabs>
    </Paper>
  );
}

function Fact({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th scope="row" w={100} fw={500} c="gray.8">
        {label}
      </Table.Th>
      <Table.Td style={{ wordBreak: 'break-word' }}>{value}</Table.Td>
    </Table.Tr>
  );
}

function Attributes({ values, label }: { values: Record<string, unknown>; label: string }) {
  const entries = Object.entries(values).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <Text size="sm">None.</Text>;
  return (
    <Table fz="xs" verticalSpacing={2} aria-label={label} data-testid="attribute-table">
      <Table.Tbody>
        {entries.map(([key, value]) => (
          <Table.Tr key={key}>
            <Table.Th scope="row" fw={500} style={{ wordBreak: 'break-all', width: '45%' }}>
              {key}
            </Table.Th>
            <Table.Td style={{ wordBreak: 'break-word', fontFamily: 'var(--mantine-font-family-monospace)' }}>
              {typeof value === 'string' ? value : JSON.stringify(value)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function eventOffset(event: SpanEvent, traceStartUnixNano: string): string {
  if (!event.time_unix_nano) return event.time ?? '';
  const ms = Number(BigInt(event.time_unix_nano) - BigInt(traceStartUnixNano)) / 1e6;
  return `+${formatDuration(Math.max(0, ms))}`;
}
