/**
 * The lines of an NDJSON body (Ollama's streamed answers), each parsed as it arrives: chunks may end
 * in the middle of a line or of a UTF-8 character, and the last line may lack its newline.
 */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) yield JSON.parse(line);
        newline = buffer.indexOf('\n');
      }
      if (done) break;
    }
    if (buffer.trim()) yield JSON.parse(buffer);
  } finally {
    reader.releaseLock();
  }
}

/** One line of `/api/chat`: a piece of the answer, the end, or an error the server sent mid-stream. */
export type ChatChunk = { kind: 'token'; text: string } | { kind: 'done'; reason?: string; evalCount?: number } | { kind: 'error'; message: string };

export function chatChunk(line: unknown): ChatChunk {
  const value = (line ?? {}) as { message?: { content?: unknown }; done?: unknown; done_reason?: unknown; eval_count?: unknown; error?: unknown };
  if (typeof value.error === 'string') return { kind: 'error', message: value.error };
  if (typeof value.error === 'object' && value.error && typeof (value.error as { message?: unknown }).message === 'string')
    return { kind: 'error', message: (value.error as { message: string }).message };
  if (value.done === true)
    return {
      kind: 'done',
      reason: typeof value.done_reason === 'string' ? value.done_reason : undefined,
      evalCount: typeof value.eval_count === 'number' ? value.eval_count : undefined,
    };
  return { kind: 'token', text: typeof value.message?.content === 'string' ? value.message.content : '' };
}
