import { baseEnvShape, loadConfig } from '@platform/config';
import { z } from 'zod';

const list = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) => value.split(',').map((item) => item.trim()).filter(Boolean));
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

export const mcpRegistryEnvShape = {
  ...baseEnvShape,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Commands a stdio connection may run (names looked up on the child's PATH, or absolute paths). */
  MCP_STDIO_ALLOWED_COMMANDS: list('mcp-server-everything'),
  /** Directories searched for allowed commands, before /usr/local/bin:/usr/bin:/bin. */
  MCP_STDIO_PATH: list(''),
  /** Data segment limit (RLIMIT_DATA) of a stdio server, in MiB; 0 for none. */
  MCP_STDIO_MEMORY_MB: int(1024),
  /** CPU time limit (RLIMIT_CPU) of a stdio server process, in seconds; 0 for none. */
  MCP_STDIO_CPU_SECONDS: int(3600),
  /** Where stdio servers get their own working directories. */
  MCP_STDIO_WORK_ROOT: z.string().optional(),
  /** Checks slower than this fraction of their timeout make a connection `degraded`. */
  MCP_DEGRADED_THRESHOLD: z.coerce.number().min(0.05).max(1).default(0.5),
  /** Parallel checks of a batch, and of the scheduled-check worker. */
  MCP_CHECK_CONCURRENCY: int(16, 1),
  MCP_DEFAULT_CAPACITY: int(10, 1),
  /** A session (and stdio process) unused for this long is closed; 0 keeps it until disconnect. */
  MCP_SESSION_IDLE_SECONDS: int(900),
  /** Queue of scheduled checks; `<name>.on-demand` carries the `api` role's checks and tool calls. */
  MCP_HEALTH_QUEUE: z.string().default('mcp-registry.health-checks'),
  /** Redis prefix of the stream fan-out channel, live load counters and locks. */
  MCP_REDIS_PREFIX: z.string().default('mcp-registry'),
  /** Requests per minute per caller (engines' limit of spec 2) and the burst above it. */
  MCP_RATE_LIMIT: int(200, 1),
  MCP_RATE_LIMIT_BURST: int(300, 1),
};

export type McpRegistryConfig = Readonly<z.infer<z.ZodObject<typeof mcpRegistryEnvShape>>>;

export function loadMcpRegistryConfig(env: NodeJS.ProcessEnv = process.env): McpRegistryConfig {
  return loadConfig(mcpRegistryEnvShape, env);
}
