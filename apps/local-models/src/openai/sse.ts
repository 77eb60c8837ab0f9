import { localModels } from '@platform/contracts';
import { toApiError } from '@platform/http';
import type { Response } from 'express';

/**
 * OpenAI's streamed answer: server-sent events of `data: <json>`, ended by `data: [DONE]`. Headers
 * go out with the first event, so a failure before any output still gets its status and error body.
 */
export class SseStream {
  constructor(private readonly res: Response) {}

  get started(): boolean {
    return this.res.headersSent;
  }

  send(event: unknown): void {
    if (!this.res.headersSent) {
      this.res.status(200);
      this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      this.res.setHeader('Cache-Control', 'no-cache');
      this.res.setHeader('X-Accel-Buffering', 'no');
    }
    if (!this.res.writableEnded) this.res.write(`data: ${JSON.stringify(event)}\n\n`);
  }

  done(): void {
    if (this.res.writableEnded) return;
    this.res.write('data: [DONE]\n\n');
    this.res.end();
  }

  /** A failure after output began: an error event in OpenAI's shape (what its clients raise), then the end. */
  fail(error: unknown): void {
    const apiError = toApiError(error);
    this.send(localModels.openAiErrorOf(apiError));
    this.res.end();
  }
}
