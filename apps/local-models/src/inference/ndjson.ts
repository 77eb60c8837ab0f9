import type { Response } from 'express';

/**
 * Ollama's streamed answer: one JSON object per line. Headers go out with the first line, so an
 * error found before any output still gets a proper status and error body.
 */
export class NdjsonStream {
  constructor(private readonly res: Response) {}

  get started(): boolean {
    return this.res.headersSent;
  }

  write(line: unknown): void {
    if (!this.res.headersSent) {
      this.res.status(200);
      this.res.setHeader('Content-Type', 'application/x-ndjson');
    }
    this.res.write(`${JSON.stringify(line)}\n`);
  }

  end(line?: unknown): void {
    if (line !== undefined) this.write(line);
    this.res.end();
  }

  /** A failure after output began: Ollama's error line, then the end. */
  fail(message: string): void {
    this.end({ error: message });
  }
}
