import type { localModels } from '@platform/contracts';
import { badRequest } from '@platform/http';
import type { ChatHistoryItem } from 'node-llama-cpp';
import type { EmbeddedInput } from '../backends/embedded.backend';

type Message = localModels.OpenAiMessage;

/** A message's text: the string, or its text parts joined; other parts are images or refused. */
export function textOf(content: Message['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => String((part as { text?: unknown }).text ?? ''))
    .join('\n');
}

/** The `data:` images of a message's parts, base64 as Ollama takes them; a remote image URL is refused. */
function imagesOf(content: Message['content']): string[] {
  if (!Array.isArray(content)) return [];
  const images: string[] = [];
  for (const part of content) {
    if (part.type === 'text') continue;
    if (part.type !== 'image_url') throw badRequest(`Content parts of type '${part.type}' are not supported`, { param: 'messages' });
    const url = String((part as { image_url?: { url?: unknown } }).image_url?.url ?? '');
    const data = /^data:image\/[a-z0-9.+-]+;base64,(.+)$/i.exec(url)?.[1];
    if (!data) throw badRequest('Images must be given as data: URLs (this service fetches no remote URL)', { param: 'messages' });
    images.push(data);
  }
  return images;
}

const defined = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined && value !== null));

/** OpenAI's sampling fields as Ollama `options` (the one mapping both backends read). */
export function optionsOf(body: localModels.ChatCompletionRequest | localModels.TextCompletionRequest): localModels.ModelOptions {
  const maxTokens = ('max_completion_tokens' in body ? body.max_completion_tokens : undefined) ?? body.max_tokens;
  return defined({
    temperature: body.temperature,
    top_p: body.top_p,
    seed: body.seed,
    num_predict: maxTokens,
    stop: typeof body.stop === 'string' ? [body.stop] : body.stop,
    frequency_penalty: body.frequency_penalty,
    presence_penalty: body.presence_penalty,
  }) as localModels.ModelOptions;
}

/** `response_format` as Ollama's `format`: `json`, a JSON schema, or nothing. */
export function formatOf(responseFormat: localModels.OpenAiResponseFormat | undefined): 'json' | Record<string, unknown> | undefined {
  if (!responseFormat || responseFormat.type === 'text') return undefined;
  if (responseFormat.type === 'json_object') return 'json';
  return (responseFormat as { json_schema: { schema?: Record<string, unknown> } }).json_schema.schema ?? 'json';
}

/** The tools the model may call under `tool_choice`: none, all, or the one named. */
export function toolsOffered(body: localModels.ChatCompletionRequest): localModels.OpenAiTool[] {
  const tools = body.tools ?? [];
  const choice = body.tool_choice;
  if (typeof choice === 'object') {
    const named = tools.filter((tool) => tool.function.name === choice.function.name);
    if (named.length === 0) throw badRequest(`tool_choice names '${choice.function.name}', which is not among the tools`, { param: 'tool_choice' });
    return named;
  }
  return choice === 'none' ? [] : tools;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** An OpenAI chat request as Ollama's `/api/chat` body. */
export function ollamaChatBody(body: localModels.ChatCompletionRequest, stream: boolean): Record<string, unknown> {
  const tools = toolsOffered(body);
  const messages = body.messages.map((message) => {
    const images = imagesOf(message.content);
    return defined({
      role: message.role === 'developer' ? 'system' : message.role,
      content: textOf(message.content),
      ...(images.length > 0 && { images }),
      tool_calls: message.tool_calls?.map((call) => ({ function: { name: call.function.name, arguments: parseArguments(call.function.arguments) } })),
      tool_name: message.role === 'tool' ? message.name : undefined,
    });
  });
  return defined({
    model: body.model,
    messages,
    stream,
    options: optionsOf(body),
    format: formatOf(body.response_format),
    ...(tools.length > 0 && { tools }),
  });
}

/**
 * The conversation for an embedded model: system and developer messages become the system prompt;
 * assistant tool calls and tool results become turns of text, since the chat template has no place
 * for them. The last message (a user's or a tool's) is the prompt.
 */
export function embeddedChatInput(model: string, messages: Message[]): EmbeddedInput & { kind: 'chat' } {
  const system = messages.filter((message) => message.role === 'system' || message.role === 'developer').map((message) => textOf(message.content));
  const rest = messages.filter((message) => message.role !== 'system' && message.role !== 'developer');
  const turn = (message: Message): string => {
    if (message.role === 'tool') return `Result of the tool call ${message.tool_call_id ?? message.name ?? ''}: ${textOf(message.content)}`;
    return textOf(message.content);
  };
  for (const message of rest) {
    if (imagesOf(message.content).length > 0) throw badRequest(`The embedded model ${model} does not take images`, { param: 'messages' });
  }
  const last = rest.at(-1);
  if (!last || (last.role !== 'user' && last.role !== 'tool')) {
    throw badRequest("The last message must be the user's (or a tool's result)", { param: 'messages' });
  }
  const history: ChatHistoryItem[] = rest.slice(0, -1).map((message) =>
    message.role === 'assistant'
      ? {
          type: 'model',
          response: [
            [textOf(message.content), ...(message.tool_calls ?? []).map((call) => JSON.stringify({ tool: call.function.name, arguments: parseArguments(call.function.arguments) }))]
              .filter(Boolean)
              .join('\n'),
          ],
        }
      : { type: 'user', text: turn(message) },
  );
  return { kind: 'chat', system: system.length > 0 ? system.join('\n\n') : undefined, history, prompt: turn(last) };
}
