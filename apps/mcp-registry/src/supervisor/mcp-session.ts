import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { guardedStreamFetch } from '@platform/http';
import { CpuSampler, processStartTicks, residentBytes, signalGroup } from './process-info';
import { prepareLaunch, removeWorkDir, type StdioPolicy } from './stdio-launch';
import { GuardedWebSocketTransport } from './websocket-transport';

/** How sessions start their servers: stdio's launch policy, and the outbound guard's for http and websocket URLs. */
export interface SessionPolicy {
  stdio: StdioPolicy;
  /** Private, loopback and link-local addresses may be reached (`OUTBOUND_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
}

/**
 * How long an HTTP server may take to connect and send its response headers. A JSON (not SSE)
 * answer only has headers once the tool is done, so this is the longest call a connection may
 * configure (120 s) plus a margin; the SDK's own per-request timeouts are the tighter bound.
 */
const HTTP_HEADERS_TIMEOUT_MS = 125_000;

/** What a session needs to know of its connection. */
export interface SessionTarget {
  id: string;
  protocol: 'stdio' | 'http' | 'websocket';
  endpoint: { command?: string; args?: string[]; url?: string; headers?: Record<string, string> };
}

export interface SessionHooks {
  /** The server went away without being asked to (process died, socket closed). */
  onUnexpectedClose(session: McpSession): void;
  onProcessStarted?(session: McpSession): Promise<void> | void;
  onProcessGone?(session: McpSession): Promise<void> | void;
}

const CLIENT_INFO = { name: 'mcp-registry', version: '0.2.0' };

/** A tool as a server reports it in tools/list. */
export interface ReportedTool {
  name: string;
  description?: string;
  inputSchema: object;
}

/** Even a server that announces changes is listed again after this long (a lost notification). */
const TOOL_LIST_MAX_AGE_MS = 5 * 60_000;

/**
 * One MCP session with one server: the initialize handshake happens once, in `open`; checks and
 * tool calls then reuse it. For stdio the session owns the server process and its process group.
 */
export class McpSession {
  readonly client = new Client(CLIENT_INFO, { capabilities: {} });
  readonly openedAt = Date.now();
  pid: number | null = null;
  startTicks?: bigint;
  workDir?: string;
  program?: string;
  private closing = false;
  private cpu?: CpuSampler;
  private transport?: Transport;
  /** Whether the server tells this session when its tools change (MCP `tools.listChanged`). */
  private hearsToolChanges = false;
  private toolList?: { tools: ReportedTool[]; listedAt: number };
  /** Bumped by every change notification, so a list fetched across one is not kept. */
  private toolGeneration = 0;

  constructor(
    readonly target: SessionTarget,
    private readonly policy: SessionPolicy,
    private readonly hooks: SessionHooks,
  ) {}

  get closed(): boolean {
    return this.closing;
  }

  /** Connects (starting the process for stdio) and performs the initialize handshake. */
  async open(timeoutMs: number): Promise<void> {
    this.transport = this.createTransport(timeoutMs);
    const transport = this.transport;
    try {
      await this.client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await this.close();
      throw error;
    }
    // Stateless HTTP has no channel for the server to push on: only stdio and WebSocket hear changes.
    if (this.target.protocol !== 'http' && this.client.getServerCapabilities()?.tools?.listChanged) {
      this.hearsToolChanges = true;
      this.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        this.toolGeneration += 1;
        this.toolList = undefined;
      });
    }
    this.client.onclose = () => {
      if (!this.closing) {
        this.close().catch(() => undefined);
        this.hooks.onUnexpectedClose(this);
      }
    };
  }

  private createTransport(timeoutMs: number): Transport {
    const { endpoint, protocol } = this.target;
    const { allowPrivate } = this.policy;
    // Both URLs are a user's: every request goes through the outbound guard (DESIGN.md, "Services calling services").
    if (protocol === 'http') {
      return new StreamableHTTPClientTransport(new URL(endpoint.url!), {
        fetch: guardedStreamFetch({ allowPrivate, timeoutMs: HTTP_HEADERS_TIMEOUT_MS }),
        requestInit: { headers: endpoint.headers ?? {} },
      });
    }
    if (protocol === 'websocket') return new GuardedWebSocketTransport(new URL(endpoint.url!), { allowPrivate, handshakeTimeoutMs: timeoutMs });
    const launch = prepareLaunch(this.target.id, endpoint.command!, endpoint.args ?? [], this.policy.stdio);
    this.workDir = launch.cwd;
    this.program = launch.program;
    const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, cwd: launch.cwd, stderr: 'ignore' });
    const start = transport.start.bind(transport);
    // Record the process the moment it exists, before the handshake that may hang.
    transport.start = async () => {
      await start();
      this.pid = transport.pid;
      if (this.pid) {
        this.startTicks = processStartTicks(this.pid);
        this.cpu = new CpuSampler(this.pid);
        this.cpu.sample();
        await this.hooks.onProcessStarted?.(this);
      }
    };
    return transport;
  }

  /**
   * The tools as last listed, while they are known to be current: the server announces changes
   * and has announced none since. Otherwise undefined, and the caller lists them again.
   */
  knownTools(now = Date.now()): ReportedTool[] | undefined {
    if (!this.hearsToolChanges || !this.toolList || now - this.toolList.listedAt > TOOL_LIST_MAX_AGE_MS) return undefined;
    return this.toolList.tools;
  }

  /** Lists the tools with `list` and keeps the result unless a change was announced meanwhile. */
  async listTools(list: () => Promise<ReportedTool[]>): Promise<ReportedTool[]> {
    const generation = this.toolGeneration;
    const tools = await list();
    if (generation === this.toolGeneration) this.toolList = { tools, listedAt: Date.now() };
    return tools;
  }

  /** Whether the server process (stdio) or the session (http, websocket) is up. */
  get running(): boolean {
    if (this.closing) return false;
    if (this.target.protocol !== 'stdio') return this.transport !== undefined;
    return this.pid !== null && processStartTicks(this.pid) === this.startTicks;
  }

  diagnostics(): { processRunning: boolean; memoryBytes?: number; cpuUsage: number; pid: number | null } {
    const running = this.running;
    if (this.target.protocol !== 'stdio' || !this.pid || !running) return { processRunning: running, cpuUsage: 0, pid: this.pid };
    return { processRunning: true, memoryBytes: residentBytes(this.pid), cpuUsage: this.cpu?.sample() ?? 0, pid: this.pid };
  }

  /** Ends the session; for stdio, terminates the whole process group and removes its directory. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const pid = this.pid;
    if (pid && this.startTicks !== undefined && processStartTicks(pid) === this.startTicks) signalGroup(pid, 'SIGTERM');
    await Promise.race([this.client.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    // Anything of the group still alive (children that ignored SIGTERM) goes now.
    if (pid) signalGroup(pid, 'SIGKILL');
    if (this.workDir) removeWorkDir(this.workDir, this.policy.stdio.workRoot);
    // The record goes last; a database hiccup here must not fail the close (the reaper cleans up).
    if (pid) await Promise.resolve(this.hooks.onProcessGone?.(this)).catch(() => undefined);
  }
}
