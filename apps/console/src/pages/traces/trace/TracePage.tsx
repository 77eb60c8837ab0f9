import { Anchor, Badge, Box, Group, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiErrorAlert, PageHeader, QueryState } from '../../../ui';
import { useTrace, type Trace } from '../api';
import { projectHref } from '../links';
import { formatDuration } from '../waterfall/axis';
import { flattenTree, layoutWaterfall, type WaterfallRow } from '../waterfall/layout';
import { serviceColors } from '../waterfall/service-colors';
import { Waterfall } from '../waterfall/Waterfall';
import { SpanDetails } from './SpanDetails';

const TRACE_ID = /^[0-9a-f]{32}$/;

/** `/traces/trace/:traceId`: one trace as a waterfall, a span's details beside it (`?span=`). */
export function TracePage() {
  const { traceId = '' } = useParams();
  const id = traceId.toLowerCase();
  return (
    <Stack gap="sm">
      <PageHeader
        title="Trace"
        description={
          <Text span ff="monospace" size="sm">
            {id}
          </Text>
        }
      />
      {TRACE_ID.test(id) ? (
        <TraceView traceId={id} />
      ) : (
        <ApiErrorAlert error={new Error(`"${traceId}" is not a trace id (32 hex digits)`)} title="Not a trace id" />
      )}
    </Stack>
  );
}

function TraceView({ traceId }: { traceId: string }) {
  const query = useTrace(traceId);
  return <QueryState query={query}>{(trace) => <TraceWaterfall trace={trace} />}</QueryState>;
}

function TraceWaterfall({ trace }: { trace: Trace }) {
  const [params, setParams] = useSearchParams();
  const layout = useMemo(() => layoutWaterfall(flattenTree(trace.spans)), [trace]);
  const colors = useMemo(() => serviceColors(layout.services), [layout]);
  const selectedId = params.get('span') ?? undefined;
  const selected = useMemo(() => (selectedId ? layout.rows.find((row) => row.span.span_id === selectedId) : undefined), [layout, selectedId]);
  const errors = useMemo(() => layout.rows.reduce((count, row) => count + (row.error ? 1 : 0), 0), [layout]);

  const select = (row: WaterfallRow | undefined) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (row) next.set('span', row.span.span_id);
        else next.delete('span');
        return next;
      },
      { replace: true },
    );

  return (
    <Stack gap="sm">
      <Group gap="lg" data-testid="trace-summary">
        <Fact label="Spans" value={trace.span_count.toLocaleString('en')} />
        <Fact label="Duration" value={formatDuration(layout.durationMs)} />
        <Fact label="Started" value={new Date(trace.start_time).toLocaleString('en')} />
        <Fact label="Errors" value={String(errors)} tone={errors ? 'red.9' : undefined} />
        {trace.root_span && <Fact label="Root" value={trace.root_span.name} />}
      </Group>
      <Group gap="xs" aria-label="Services in this trace" role="group" data-testid="trace-services">
        {layout.services.map((service) => (
          <Badge key={service} variant="dot" color={colors.get(service)} size="lg" styles={{ root: { textTransform: 'none' } }} data-testid="trace-service">
            {service}
          </Badge>
        ))}
        <Text size="xs" c="gray.8">
          Projects:{' '}
          {trace.projects.map((project, index) => (
            <span key={project}>
              {index > 0 && ', '}
              <Anchor component={Link} to={projectHref(project)} size="xs">
                {project}
              </Anchor>
            </span>
          ))}
        </Text>
      </Group>
      <Box style={{ display: 'flex', gap: 'var(--mantine-spacing-sm)', alignItems: 'flex-start' }}>
        <Box style={{ flex: 1, minWidth: 0 }}>
          <Waterfall layout={layout} colors={colors} selectedId={selectedId} onSelect={select} height="calc(100vh - 300px)" />
        </Box>
        {selected && (
          <Box style={{ flex: '0 0 400px', maxWidth: '40%' }}>
            <SpanDetails row={selected} traceStartUnixNano={layout.startUnixNano} onClose={() => select(undefined)} />
          </Box>
        )}
      </Box>
    </Stack>
  );
}

function Fact({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="gray.8">
        {label}
      </Text>
      <Text size="sm" fw={600} c={tone}>
        {value}
      </Text>
    </Stack>
  );
}
