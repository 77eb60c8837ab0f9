import { chatChunk, ndjsonLines } from './ndjson';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const lines: unknown[] = [];
  for await (const line of ndjsonLines(body)) lines.push(line);
  return lines;
}

describe('ndjsonLines', () => {
  it('reads lines split across chunks, even inside a UTF-8 character', async () => {
    const bytes = new TextEncoder().encode('{"message":{"content":"héllo "}}\n{"message":{"content":"wörld"}}\n{"done":true}');
    // Split every 5 bytes: "é" and "ö" are two bytes each and land across chunk borders.
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 5) chunks.push(bytes.slice(at, at + 5));
    expect(await collect(streamOf(chunks))).toEqual([{ message: { content: 'héllo ' } }, { message: { content: 'wörld' } }, { done: true }]);
  });

  it('skips blank lines and takes CRLF', async () => {
    const text = '{"a":1}\r\n\r\n{"a":2}\n\n';
    expect(await collect(streamOf([new TextEncoder().encode(text)]))).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('throws on a line that is not JSON', async () => {
    await expect(collect(streamOf([new TextEncoder().encode('{"a":1}\nnot json\n')]))).rejects.toThrow(SyntaxError);
  });
});

describe('chatChunk', () => {
  it('reads tokens, the end and errors', () => {
    expect(chatChunk({ model: 'm', message: { role: 'assistant', content: 'Hi' }, done: false })).toEqual({ kind: 'token', text: 'Hi' });
    expect(chatChunk({ done: true, done_reason: 'stop', eval_count: 7, message: { content: '' } })).toEqual({ kind: 'done', reason: 'stop', evalCount: 7 });
    expect(chatChunk({ error: 'model crashed' })).toEqual({ kind: 'error', message: 'model crashed' });
    expect(chatChunk({ error: { type: 'api_error', message: 'upstream broke' } })).toEqual({ kind: 'error', message: 'upstream broke' });
    expect(chatChunk(null)).toEqual({ kind: 'token', text: '' });
  });
});
