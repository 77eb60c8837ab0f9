import { PlatformError, unwrap, type PlatformClient } from '@platform/sdk';
import type { Command } from 'commander';
import readline from 'node:readline';
import { createContext, type Io } from '../context';
import { table } from '../output';

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Streams one answer of `/api/chat` (NDJSON, one chunk a line) to `write`; the whole answer. */
async function streamChat(platform: PlatformClient, model: string, messages: ChatMessage[], write: (text: string) => void): Promise<string> {
  const { data, error, response } = await platform.localModels.POST('/api/chat', {
    body: { model, messages, stream: true } as never,
    parseAs: 'stream',
  });
  if (!response.ok || !data) throw PlatformError.fromBody(response.status, error, response.headers);
  const decoder = new TextDecoder();
  let buffered = '';
  let answer = '';
  const handle = (line: string) => {
    if (!line.trim()) return;
    const chunk = JSON.parse(line) as { message?: { content?: string }; error?: string };
    if (chunk.error) throw new PlatformError(502, 'model_error', chunk.error);
    const piece = chunk.message?.content ?? '';
    answer += piece;
    if (piece) write(piece);
  };
  const reader = (data as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    lines.forEach(handle);
  }
  handle(buffered);
  return answer;
}

export function modelCommands(program: Command, io: Io): void {
  const models = program.command('models').description('Models on local-models: list them, chat with one');

  models
    .command('list')
    .description('The models local-models serves (its files and its Ollama server’s)')
    .action(async (_options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const tags = await unwrap(platform.localModels.GET('/api/tags'));
      const rows = tags.models as Array<Record<string, unknown>>;
      context.out.data(rows, () =>
        table(rows, [
          { header: 'name', value: (row) => row.name },
          { header: 'size', value: (row) => row.size },
          { header: 'modified', value: (row) => row.modified_at },
        ]),
      );
    });

  models
    .command('chat <model>')
    .description('Chat with a model, its answer streamed as it is written; one --message, or a conversation on stdin (a line a turn)')
    .option('-m, --message <text>', 'ask this one thing and exit')
    .option('--system <text>', 'a system prompt')
    .action(async (model: string, options: { message?: string; system?: string }, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const messages: ChatMessage[] = options.system ? [{ role: 'system', content: options.system }] : [];
      const ask = async (text: string) => {
        messages.push({ role: 'user', content: text });
        const answer = await streamChat(platform, model, messages, (piece) => io.stdout.write(piece));
        io.stdout.write('\n');
        messages.push({ role: 'assistant', content: answer });
      };
      if (options.message) return ask(options.message);
      const terminal = !!io.stdin.isTTY;
      const lines = readline.createInterface({ input: io.stdin, output: terminal ? io.stderr : undefined, terminal });
      if (terminal) io.stderr.write(`Chatting with ${model}; Ctrl-D ends.\n> `);
      for await (const line of lines) {
        if (line.trim()) await ask(line);
        if (terminal) io.stderr.write('> ');
      }
    });
}
