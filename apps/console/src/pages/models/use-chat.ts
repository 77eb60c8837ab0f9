import type { localModels } from '@platform/contracts';
import { useRef, useState } from 'react';
import { PlatformError, usePlatform } from '../../api';
import { okResponse } from '../agents/raw-fetch';
import { chatChunk, ndjsonLines } from './ndjson';

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
  /** The answer is still arriving. */
  streaming?: boolean;
  stats?: { tokens?: number; reason?: string };
}

/**
 * A conversation with one model through local-models' `/api/chat`, streamed: the answer grows on the
 * page token by token as the NDJSON lines arrive. `stop` aborts the request (the service counts the
 * call as aborted).
 */
export function useChat() {
  const { send } = usePlatform();
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [error, setError] = useState<unknown>();
  const [streaming, setStreaming] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);

  const updateLast = (change: (turn: ChatTurn) => ChatTurn) =>
    setTurns((current) => [...current.slice(0, -1), change(current[current.length - 1])]);

  const ask = async (model: string, prompt: string, system?: string) => {
    const history = [...turns.filter((turn) => !turn.streaming), { role: 'user' as const, content: prompt }];
    setTurns([...history, { role: 'assistant', content: '', streaming: true }]);
    setError(undefined);
    setStreaming(true);
    const controller = new AbortController();
    abort.current = controller;
    const messages: localModels.ChatMessage[] = [
      ...(system ? [{ role: 'system' as const, content: system }] : []),
      ...history.map((turn) => ({ role: turn.role, content: turn.content })),
    ];
    try {
      const response = await okResponse(
        await send('local-models', '/api/chat', { method: 'POST', json: { model, messages, stream: true }, signal: controller.signal, headers: { accept: 'application/x-ndjson' } }),
      );
      if (!response.body) throw new PlatformError(response.status, 'unexpected_response', 'The answer has no body');
      for await (const line of ndjsonLines(response.body)) {
        const chunk = chatChunk(line);
        if (chunk.kind === 'error') throw new PlatformError(502, 'upstream_error', chunk.message);
        if (chunk.kind === 'token') updateLast((turn) => ({ ...turn, content: turn.content + chunk.text }));
        else updateLast((turn) => ({ ...turn, stats: { tokens: chunk.evalCount, reason: chunk.reason } }));
      }
    } catch (caught) {
      if ((caught as Error).name !== 'AbortError') setError(caught);
    } finally {
      updateLast((turn) => ({ ...turn, streaming: false }));
      setStreaming(false);
      abort.current = undefined;
    }
  };

  return {
    turns,
    error,
    streaming,
    ask,
    stop: () => abort.current?.abort(),
    clear: () => {
      abort.current?.abort();
      setTurns([]);
      setError(undefined);
    },
  };
}
