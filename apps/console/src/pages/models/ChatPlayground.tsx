import { Badge, Box, Button, Group, Paper, Select, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { ApiErrorAlert } from '../../ui';
import { useModels } from './models-api';
import { useChat } from './use-chat';

/** Chat with a model; its answer is rendered as the tokens arrive. */
export function ChatPlayground() {
  const models = useModels();
  const chat = useChat();
  const [model, setModel] = useState<string | null>(null);
  const [system, setSystem] = useState('');
  const [prompt, setPrompt] = useState('');
  const names = (models.data?.models ?? []).map((entry) => entry.name);
  const chosen = model ?? names[0] ?? null;

  const submit = () => {
    if (!chosen || !prompt.trim() || chat.streaming) return;
    void chat.ask(chosen, prompt.trim(), system.trim() || undefined);
    setPrompt('');
  };

  return (
    <Stack>
      {models.isError && <ApiErrorAlert error={models.error} />}
      <Group align="flex-end">
        <Select label="Model" data={names} value={chosen} onChange={setModel} allowDeselect={false} w={280} placeholder={models.isPending ? 'Loading…' : 'No model'} />
        <Textarea label="System prompt (optional)" value={system} onChange={(event) => setSystem(event.currentTarget.value)} autosize minRows={1} style={{ flex: 1 }} />
      </Group>
      <Paper withBorder p="md" mih={220} role="log" aria-label="Conversation" aria-busy={chat.streaming}>
        {chat.turns.length === 0 ? (
          <Text c="dimmed" size="sm">
            Ask the model something: its answer streams in here.
          </Text>
        ) : (
          <Stack gap="sm">
            {chat.turns.map((turn, index) => (
              <Box
                key={index}
                data-testid={`chat-${turn.role}`}
                p="sm"
                bg={turn.role === 'user' ? 'blue.0' : 'gray.0'}
                style={{ borderRadius: 6, alignSelf: turn.role === 'user' ? 'flex-end' : 'flex-start', maxWidth: '85%' }}
              >
                <Text size="xs" fw={600} c="dimmed">
                  {turn.role === 'user' ? 'You' : chosen}
                  {turn.streaming ? ' · streaming…' : ''}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {turn.content || (turn.streaming ? '…' : '')}
                </Text>
                {turn.stats?.tokens !== undefined && (
                  <Badge size="xs" variant="light" mt={4}>
                    {turn.stats.tokens} tokens{turn.stats.reason ? ` · ${turn.stats.reason}` : ''}
                  </Badge>
                )}
              </Box>
            ))}
          </Stack>
        )}
      </Paper>
      {chat.error !== undefined && <ApiErrorAlert error={chat.error} title="The model did not answer" />}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Group align="flex-end">
          <Textarea
            label="Message"
            value={prompt}
            onChange={(event) => setPrompt(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.shiftKey) {
                event.preventDefault();
                submit();
              }
            }}
            autosize
            minRows={2}
            maxLength={200_000}
            style={{ flex: 1 }}
          />
          {chat.streaming ? (
            <Button color="red" variant="light" onClick={chat.stop}>
              Stop
            </Button>
          ) : (
            <Button type="submit" disabled={!chosen || !prompt.trim()}>
              Send
            </Button>
          )}
          <Button variant="subtle" onClick={chat.clear} disabled={chat.turns.length === 0}>
            Clear
          </Button>
        </Group>
      </form>
    </Stack>
  );
}
