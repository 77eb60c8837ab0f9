import { Anchor, Badge, Button, Group, List, Paper, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import type { tracing } from '@platform/contracts';
import { ApiErrorAlert, DataTable, PageHeader } from '../../../ui';
import { useSpanSearch } from '../api';
import { traceHref } from '../links';
import { formatDuration } from '../waterfall/axis';
import { serviceOf } from '../waterfall/layout';
import { searchFromParams, searchToParams, spanSearchQuery, type SpanSearch } from './span-search';

/** `/traces/projects/:project`: a project's spans by name, status, time range and attributes. */
export function SpanSearchPage() {
  const { project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const search = searchFromParams(params);
  const query = useSpanSearch(project, search);
  const spans = query.data?.pages.flatMap((page) => page.spans) ?? [];
  const total = query.data?.pages[0]?.total;

  return (
    <Stack>
      <PageHeader
        title={project}
        description="Spans of this project, newest first."
        actions={
          <Anchor component={Link} to="/traces">
            All projects
          </Anchor>
        }
      />
      <SearchForm key={params.toString()} initial={search} onSearch={(next) => setParams(searchToParams(next))} />
      {query.isError ? (
        <ApiErrorAlert error={query.error} />
      ) : (
        <Stack gap="xs">
          <Text size="sm" c="gray.8" data-testid="span-total" aria-live="polite">
            {query.isPending ? 'Searching…' : `${total?.toLocaleString('en') ?? 0} span${total === 1 ? '' : 's'} found`}
          </Text>
          <DataTable<tracing.Span>
            rows={spans}
            rowKey={(span) => `${span.trace_id}:${span.span_id}`}
            empty={query.isPending ? 'Searching…' : 'No span matches this search.'}
            caption={`Spans of ${project}`}
            columns={[
              {
                key: 'name',
                header: 'Span',
                render: (span) => (
                  <Anchor component={Link} to={traceHref(span.trace_id, span.span_id)} data-testid="span-result">
                    {span.name}
                  </Anchor>
                ),
              },
              { key: 'service', header: 'Service', render: (span) => serviceOf(span) },
              {
                key: 'status',
                header: 'Status',
                render: (span) =>
                  span.status.code === 'ERROR' ? (
                    <Badge color="red.9">error</Badge>
                  ) : (
                    <Badge variant="outline" color="gray.8">
                      {span.status.code.toLowerCase()}
                    </Badge>
                  ),
              },
              { key: 'start', header: 'Started', render: (span) => new Date(span.start_time).toLocaleString('en') },
              { key: 'duration', header: 'Duration', render: (span) => formatDuration(span.duration_ms) },
              {
                key: 'trace',
                header: 'Trace',
                render: (span) => (
                  <Text ff="monospace" size="xs">
                    {span.trace_id.slice(0, 12)}…
                  </Text>
                ),
              },
            ]}
          />
          {query.hasNextPage && (
            <Group>
              <Button variant="default" loading={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
                Load more
              </Button>
            </Group>
          )}
        </Stack>
      )}
    </Stack>
  );
}

/** datetime-local has no zone: the user means their own. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
const toLocal = (iso: string) => {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};

function SearchForm({ initial, onSearch }: { initial: SpanSearch; onSearch: (search: SpanSearch) => void }) {
  const [form, setForm] = useState({ ...initial, from: toLocal(initial.from), to: toLocal(initial.to) });
  const candidate: SpanSearch = { ...form, from: toIso(form.from), to: toIso(form.to) };
  const { errors } = spanSearchQuery(candidate, { limit: 1 });
  const set = (key: keyof SpanSearch) => (value: string) => setForm((current) => ({ ...current, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.length === 0) onSearch(candidate);
  };
  return (
    <Paper withBorder p="sm" component="form" onSubmit={submit} aria-label="Search spans">
      <Stack gap="xs">
        <Group grow align="flex-start">
          <TextInput label="Name" placeholder="exact span name" value={form.name} onChange={(e) => set('name')(e.currentTarget.value)} />
          <Select
            label="Status"
            data={[
              { value: '', label: 'Any' },
              { value: 'OK', label: 'OK' },
              { value: 'ERROR', label: 'Error' },
              { value: 'UNSET', label: 'Unset' },
            ]}
            value={form.status}
            onChange={(value) => set('status')(value ?? '')}
            allowDeselect={false}
          />
          <TextInput type="datetime-local" label="From" value={form.from} onChange={(e) => set('from')(e.currentTarget.value)} />
          <TextInput type="datetime-local" label="To" value={form.to} onChange={(e) => set('to')(e.currentTarget.value)} />
        </Group>
        <Textarea
          label="Attributes"
          description="key=value, one a line: every one must match"
          placeholder="http.request.method=POST"
          autosize
          minRows={1}
          maxRows={6}
          value={form.attributes}
          onChange={(e) => set('attributes')(e.currentTarget.value)}
        />
        {errors.length > 0 && (
          <List size="sm" c="red.9" role="alert">
            {errors.map((error) => (
              <List.Item key={error}>{error}</List.Item>
            ))}
          </List>
        )}
        <Group>
          <Button type="submit" disabled={errors.length > 0}>
            Search
          </Button>
          <Button variant="default" onClick={() => onSearch({ name: '', status: '', from: '', to: '', attributes: '' })}>
            Clear
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
