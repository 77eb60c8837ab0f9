import type { localModels } from '@platform/contracts';

/** What an embedded answer decodes to: text, or calls of the offered tools. */
export interface Decoded {
  content: string | null;
  calls: Array<{ name: string; arguments: string }>;
}

/** How an embedded model answers a request with tools: a JSON schema for its grammar, and how to read the output. */
export interface ToolPlan {
  format: Record<string, unknown>;
  decode(text: string): Decoded;
}

const parametersOf = (tool: localModels.OpenAiTool) => tool.function.parameters ?? { type: 'object', properties: {} };

const callSchema = (tool: localModels.OpenAiTool) => ({
  type: 'object',
  properties: { tool: { const: tool.function.name }, arguments: parametersOf(tool) },
  required: ['tool', 'arguments'],
});

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Function calling for an embedded model, as llama.cpp's structured output makes it possible: a
 * grammar lets the model produce only a call of an offered tool (`required`, or one named), or that
 * or an `answer` (`auto`). An output cut short (max_tokens) is returned as text.
 */
export function toolPlan(tools: localModels.OpenAiTool[], choice: localModels.ChatCompletionRequest['tool_choice']): ToolPlan | undefined {
  if (tools.length === 0) return undefined;
  const asText = (text: string): Decoded => ({ content: text, calls: [] });
  if (typeof choice === 'object' || (choice === 'required' && tools.length === 1)) {
    const [tool] = tools;
    return {
      format: parametersOf(tool),
      decode: (text) => (parse(text) ? { content: null, calls: [{ name: tool.function.name, arguments: text.trim() }] } : asText(text)),
    };
  }
  const calls = tools.map(callSchema);
  const answer = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
  return {
    format: { oneOf: choice === 'required' ? calls : [answer, ...calls] },
    decode: (text) => {
      const value = parse(text);
      if (!value) return asText(text);
      if (typeof value.tool === 'string') return { content: null, calls: [{ name: value.tool, arguments: JSON.stringify(value.arguments ?? {}) }] };
      return { content: typeof value.answer === 'string' ? value.answer : text, calls: [] };
    },
  };
}
