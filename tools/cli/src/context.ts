import { PlatformSession, type PlatformClient, type WebSocketConstructor } from '@platform/sdk';
import type { Command } from 'commander';
import { readFileSync, statSync } from 'node:fs';
import WebSocket from 'ws';
import { parse as parseYaml } from 'yaml';
import { fileStore, credentialsFile } from './credentials';
import { CliError, ExitCode } from './exit-codes';
import { printer, type OutputFormat, type Printer } from './output';

export const DEFAULT_URL = 'http://127.0.0.1:3002';

export interface GlobalOptions {
  url: string;
  output: OutputFormat;
}

/** Where the command reads and writes: the process's, or a test's. */
export interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export interface Context {
  url: string;
  out: Printer;
  io: Io;
  session: PlatformSession;
  credentialsFile: string;
  /** The platform as the signed-in user; exit 3 when nobody is. */
  platform(): Promise<PlatformClient>;
}

export function createContext(command: Command, io: Io): Context {
  const options = command.optsWithGlobals<GlobalOptions>();
  const url = options.url.replace(/\/+$/, '');
  const file = credentialsFile(io.env);
  const session = new PlatformSession({
    baseUrl: url,
    store: fileStore(url, file),
    clientId: 'platform-cli',
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
  return {
    url,
    io,
    session,
    credentialsFile: file,
    out: printer(options.output, io.stdout, io.stderr),
    async platform() {
      if (!(await session.tokens())) throw new CliError(`Not signed in to ${url}: run \`platform login\``, ExitCode.notSignedIn);
      if (!(await session.token())) throw new CliError(`The session at ${url} has ended: run \`platform login\``, ExitCode.notSignedIn);
      return session.client();
    },
  };
}

/** Files the CLI sends are documents a person wrote; the services refuse bodies far smaller. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** A text file's content; exit 2 when it cannot be read or is larger than any request may be. */
export function readText(file: string): string {
  try {
    if (statSync(file).size > MAX_FILE_BYTES) throw new CliError(`${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`, ExitCode.invalidInput);
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, ExitCode.invalidInput);
  }
}

/** A JSON or YAML file, parsed; exit 2 when it cannot be read or parsed. */
export function readDocument(file: string): unknown {
  const text = readText(file);
  try {
    return /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(error as Error).message}`, ExitCode.invalidInput);
  }
}

/** A JSON argument (`--args '{...}'`); exit 2 when it does not parse to an object. */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${what} is not valid JSON: ${(error as Error).message}`, ExitCode.invalidInput);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new CliError(`${what} must be a JSON object`, ExitCode.invalidInput);
  return value as Record<string, unknown>;
}

/** A positive integer option; exit 2 otherwise. */
export function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new CliError(`expected a positive integer, got "${value}"`, ExitCode.invalidInput);
  return number;
}
