import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { assertPublicHost, guardedLookup, OutboundError } from '@platform/http';
import { WebSocket } from 'ws';

const SUBPROTOCOL = 'mcp';
/** The largest message a server may send (a tool result, a tool list). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * The MCP WebSocket client transport (subprotocol `mcp`, one JSON-RPC message a frame, as the SDK's
 * `WebSocketClientTransport`) behind the outbound guard: ws/wss only, a literal private address is
 * refused before connecting and a name through a guarded `lookup` when the socket connects (so a
 * name that resolves differently the second time gains nothing), no redirects, a handshake timeout.
 * The SDK's transport takes no socket options, hence this one.
 */
export class GuardedWebSocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private socket?: WebSocket;

  constructor(
    private readonly url: URL,
    private readonly options: { allowPrivate: boolean; handshakeTimeoutMs: number },
  ) {}

  start(): Promise<void> {
    if (this.socket) throw new Error('GuardedWebSocketTransport already started');
    if (this.url.protocol !== 'ws:' && this.url.protocol !== 'wss:')
      return Promise.reject(new OutboundError('bad_url', `Only ws and wss URLs are allowed, not ${this.url.protocol}`));
    try {
      assertPublicHost(this.url, this.options.allowPrivate);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, SUBPROTOCOL, {
        lookup: guardedLookup(this.options.allowPrivate),
        handshakeTimeout: this.options.handshakeTimeoutMs,
        followRedirects: false,
        maxPayload: MAX_MESSAGE_BYTES,
      });
      this.socket = socket;
      let opened = false;
      socket.on('open', () => {
        opened = true;
        resolve();
      });
      socket.on('error', (error) => {
        if (!opened) reject(error);
        this.onerror?.(error);
      });
      socket.on('close', () => this.onclose?.());
      socket.on('message', (data, isBinary) => {
        let message: JSONRPCMessage;
        try {
          message = JSONRPCMessageSchema.parse(JSON.parse(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString()));
        } catch (error) {
          this.onerror?.(error as Error);
          return;
        }
        this.onmessage?.(message);
      });
    });
  }

  async close(): Promise<void> {
    this.socket?.close();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve, reject) => socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve())));
  }
}
