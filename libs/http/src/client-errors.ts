import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Requests that never reach Express (bad HTTP framing, oversized headers) get the platform's
 * error shape instead of Node's bare answer.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const [status, reason, code, message] = tooLarge
      ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request headers are too large']
      : [400, 'Bad Request', 'invalid_request', 'The request is not valid HTTP'];
    const body = JSON.stringify({ error: { type: 'validation_error', code, message }, requestId: randomUUID() });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
