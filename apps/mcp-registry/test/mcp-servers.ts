import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';

/** A tool that holds its call open until the test releases it: real, observable load. */
export class Gate {
  private waiting: Array<() => void> = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
  get pending(): number {
    return this.waiting.length;
  }
}

/** A real MCP server (the SDK's McpServer) with a lookup tool named by the test and a gated tool. */
export function buildServer(toolName: string, gate: Gate): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  server.registerTool(toolName, { description: 'Looks a key up', inputSchema: { key: z.string() } }, async ({ key }) => ({
    content: [{ type: 'text', text: `value of ${key}` }],
  }));
  server.registerTool(`${toolName}-gated`, { description: 'Answers when the test lets it' }, async () => {
    await gate.wait();
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return server;
}

export interface RunningServer {
  url: string;
  /** HTTP requests (http) or WebSocket connections (websocket) that reached the server. */
  received(): number;
  close(): Promise<void>;
}

/** A WebSocket server the test can watch (requests by method) and change (add a tool live). */
export interface RunningWebSocketServer extends RunningServer {
  requests(method: string): number;
  addTool(name: string): void;
}

/** Streamable HTTP at /mcp, stateless: each request gets its own server instance. */
export async function startHttpMcpServer(toolName: string, gate: Gate): Promise<RunningServer> {
  let received = 0;
  const httpServer = http.createServer(async (req, res) => {
    received += 1;
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const server = buildServer(toolName, gate);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}

/** The server side of the SDK's WebSocket transport (subprotocol `mcp`), which the SDK lacks. */
class WebSocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  constructor(
    private readonly socket: WebSocket,
    private readonly seen: (message: JSONRPCMessage) => void,
  ) {}
  async start(): Promise<void> {
    this.socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as JSONRPCMessage;
      this.seen(message);
      this.onmessage?.(message);
    });
    this.socket.on('close', () => this.onclose?.());
    this.socket.on('error', (error) => this.onerror?.(error));
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.socket.send(JSON.stringify(message));
  }
  async close(): Promise<void> {
    this.socket.close();
  }
}

export async function startWebSocketMcpServer(toolName: string, gate: Gate): Promise<RunningWebSocketServer> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false) });
  const counts = new Map<string, number>();
  const servers: McpServer[] = [];
  let received = 0;
  const seen = (message: JSONRPCMessage) => {
    if ('method' in message) counts.set(message.method, (counts.get(message.method) ?? 0) + 1);
  };
  wss.on('connection', (socket) => {
    received += 1;
    const server = buildServer(toolName, gate);
    servers.push(server);
    void server.connect(new WebSocketServerTransport(socket, seen));
  });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    requests: (method) => counts.get(method) ?? 0,
    received: () => received,
    // McpServer announces notifications/tools/list_changed to its connected client by itself.
    addTool: (name) => {
      for (const server of servers)
        server.registerTool(name, { description: 'Added while connected' }, async () => ({ content: [{ type: 'text', text: name }] }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
