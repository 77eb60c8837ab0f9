import { Stack, Tabs } from '@mantine/core';
import { PageHeader } from '../../ui';
import { ChatPlayground } from './ChatPlayground';
import { ModelsTable } from './ModelsTable';
import { UsagePanel } from './UsagePanel';

/** local-models: its models, a chat playground that streams, and what the calls cost. */
export function ModelsPage() {
  return (
    <Stack>
      <PageHeader title="Models" description="Models served by local-models (embedded GGUF files and an Ollama server's), a chat playground, and usage." />
      <Tabs defaultValue="models" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="models">Models</Tabs.Tab>
          <Tabs.Tab value="playground">Chat playground</Tabs.Tab>
          <Tabs.Tab value="usage">Usage and cost</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="models" pt="md">
          <ModelsTable />
        </Tabs.Panel>
        <Tabs.Panel value="playground" pt="md">
          <ChatPlayground />
        </Tabs.Panel>
        <Tabs.Panel value="usage" pt="md">
          <UsagePanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
