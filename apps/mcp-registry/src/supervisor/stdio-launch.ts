import { badRequest } from '@platform/http';
import { accessSync, constants, existsSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** How stdio servers are allowed to run (README: "stdio servers"). */
export interface StdioPolicy {
  /** Command names or absolute paths that may run. */
  allowedCommands: readonly string[];
  /** PATH of the child, searched for commands. */
  searchPath: readonly string[];
  memoryMb: number;
  cpuSeconds: number;
  workRoot: string;
}

export interface StdioLaunch {
  /** What the SDK transport spawns: setsid and prlimit wrapping the resolved command. */
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The resolved program, for diagnostics and process records. */
  program: string;
}

export function defaultSearchPath(extra: readonly string[] = []): string[] {
  return [path.join(process.cwd(), 'node_modules', '.bin'), path.dirname(process.execPath), ...extra, '/usr/local/bin', '/usr/bin', '/bin'];
}

export function defaultWorkRoot(): string {
  return path.join(os.tmpdir(), 'mcp-registry');
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute program a command names, looked up on the child's PATH; undefined when missing. */
export function resolveCommand(command: string, searchPath: readonly string[]): string | undefined {
  if (path.isAbsolute(command)) return executable(command) ? command : undefined;
  if (command.includes('/')) return undefined;
  for (const dir of searchPath) {
    const candidate = path.join(dir, command);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Refuses (400 `command_not_allowed`) a command off the allow-list. A command is allowed when it
 * is written exactly as an entry, or resolves to the same program as one.
 */
export function assertCommandAllowed(command: string, policy: Pick<StdioPolicy, 'allowedCommands' | 'searchPath'>): void {
  if (policy.allowedCommands.includes(command)) return;
  const resolved = resolveCommand(command, policy.searchPath);
  if (resolved && policy.allowedCommands.some((entry) => resolveCommand(entry, policy.searchPath) === resolved)) return;
  throw badRequest(
    `The command "${command}" is not on this registry's allow-list (MCP_STDIO_ALLOWED_COMMANDS)`,
    { command, allowedCommands: policy.allowedCommands },
    'command_not_allowed',
  );
}

const SETSID = ['/usr/bin/setsid', '/bin/setsid'].find(existsSync);
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find(existsSync);

export class CommandNotFoundError extends Error {
  override name = 'CommandNotFoundError';
}

/**
 * Prepares a stdio server's start: no shell, its own session (so its whole process group can be
 * killed), memory and CPU-time limits through prlimit, a fresh working directory that is also its
 * HOME, and an environment holding nothing of the registry's.
 */
export function prepareLaunch(connectionId: string, command: string, args: readonly string[], policy: StdioPolicy): StdioLaunch {
  assertCommandAllowed(command, policy);
  const program = resolveCommand(command, policy.searchPath);
  if (!program) throw new CommandNotFoundError(`command not found: ${command}`);
  mkdirSync(policy.workRoot, { recursive: true, mode: 0o700 });
  const cwd = mkdtempSync(path.join(policy.workRoot, `${connectionId}-`));
  const limits = [
    ...(policy.memoryMb > 0 ? [`--data=${policy.memoryMb * 1024 * 1024}`] : []),
    ...(policy.cpuSeconds > 0 ? [`--cpu=${policy.cpuSeconds}`] : []),
  ];
  let chain = [program, ...args];
  if (PRLIMIT && limits.length > 0) chain = [PRLIMIT, ...limits, '--', ...chain];
  if (SETSID) chain = [SETSID, ...chain];
  return {
    command: chain[0],
    args: chain.slice(1),
    env: { PATH: policy.searchPath.join(':'), HOME: cwd, TMPDIR: cwd, LANG: 'C.UTF-8' },
    cwd,
    program,
  };
}

export function removeWorkDir(dir: string, workRoot: string): void {
  // Only ever under the work root: a record read back from the database must not aim elsewhere.
  if (!path.resolve(dir).startsWith(path.resolve(workRoot) + path.sep)) return;
  rmSync(dir, { recursive: true, force: true });
}

/** Whether the process group can be killed as one (setsid is present). */
export const ownProcessGroup = SETSID !== undefined;
