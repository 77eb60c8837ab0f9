import { ActionIcon, Group, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { usePlatform } from '../../../api';
import { DataTable, JsonView, Pager, QueryState } from '../../../ui';
import { authApi, type AuditEvent } from '../auth-api';
import { formatTime } from '../users/UsersTab';

const LIMIT = 50;

export function AuditTab() {
  const platform = usePlatform();
  const [offset, setOffset] = useState(0);
  const [eventType, setEventType] = useState('');
  const [userId, setUserId] = useState('');
  const [open, setOpen] = useState<string>();
  const [filters] = useDebouncedValue({ eventType: eventType.trim() || undefined, userId: userId.trim() || undefined }, 300);
  const query = useQuery({
    queryKey: ['admin', 'audit', filters, offset],
    queryFn: () => authApi.audit(platform, { limit: LIMIT, offset, ...filters }),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack>
      <Group>
        <TextInput label="Event type" placeholder="login_success" value={eventType} onChange={(e) => (setEventType(e.currentTarget.value), setOffset(0))} />
        <TextInput label="User id" value={userId} onChange={(e) => (setUserId(e.currentTarget.value), setOffset(0))} />
      </Group>
      <QueryState query={query}>
        {(list) => (
          <>
            <DataTable<AuditEvent>
              caption="Authentication events, newest first"
              rows={list.events}
              rowKey={(event) => event.id}
              columns={[
                { key: 'time', header: 'Time', render: (event) => formatTime(event.timestamp) },
                { key: 'type', header: 'Event', render: (event) => event.eventType },
                { key: 'user', header: 'User', render: (event) => <Text size="sm" ff="monospace">{event.userId ?? '—'}</Text> },
                { key: 'client', header: 'Client', render: (event) => event.clientId ?? '—' },
                { key: 'ip', header: 'Address', render: (event) => event.ip ?? '—' },
                {
                  key: 'details',
                  header: 'Details',
                  render: (event) => (
                    <Fragment>
                      <ActionIcon
                        variant="subtle"
                        aria-label={open === event.id ? 'Hide the details' : 'Show the details'}
                        aria-expanded={open === event.id}
                        onClick={() => setOpen(open === event.id ? undefined : event.id)}
                      >
                        {open === event.id ? '−' : '+'}
                      </ActionIcon>
                      {open === event.id && <JsonView value={{ ...event.metadata, userAgent: event.userAgent }} maxHeight={240} />}
                    </Fragment>
                  ),
                },
              ]}
            />
            <Pager total={list.total} limit={LIMIT} offset={offset} onOffset={setOffset} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
