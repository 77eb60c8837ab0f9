import { PlatformError } from '@platform/sdk';

/** The CLI's exit codes (README, `platform --help`). */
export const ExitCode = {
  ok: 0,
  /** The platform refused the request (any other error answer). */
  apiError: 1,
  /** Bad arguments, an unreadable or invalid file, a 400 from the platform. */
  invalidInput: 2,
  /** No credentials for this URL, or they were refused (401). */
  notSignedIn: 3,
  /** The resource does not exist (404). */
  notFound: 4,
  /** The platform could not be reached. */
  network: 5,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  ok
  1  the platform answered with an error
  2  invalid input (arguments, files, a 400 answer)
  3  not signed in (run \`platform login\`) or the credentials were refused
  4  not found
  5  the platform could not be reached`;

/** An error the CLI reports itself, with the exit code it means. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** Lines printed under the message (a manifest's issues, say). */
    readonly lines: string[] = [],
  ) {
    super(message);
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof PlatformError) {
    if (error.status === 0) return ExitCode.network;
    if (error.status === 401) return ExitCode.notSignedIn;
    if (error.status === 404) return ExitCode.notFound;
    if (error.status === 400 || error.status === 413 || error.status === 422) return ExitCode.invalidInput;
    return ExitCode.apiError;
  }
  return ExitCode.apiError;
}

/** What the user reads on stderr for an error. */
export function describeError(error: unknown): string[] {
  if (error instanceof CliError) return [`Error: ${error.message}`, ...error.lines.map((line) => `  ${line}`)];
  if (error instanceof PlatformError) {
    if (error.status === 0) return [`Error: the platform could not be reached (${error.message})`];
    const lines = [`Error: ${error.status} ${error.code}: ${error.message}`];
    if (error.status === 401) lines.push('Sign in again with `platform login`.');
    for (const issue of issuesOf(error.details)) lines.push(`  ${issue}`);
    if (error.requestId) lines.push(`  (request ${error.requestId})`);
    return lines;
  }
  return [`Error: ${error instanceof Error ? error.message : String(error)}`];
}

/** A 400's zod issues (`details: [{path, message}]` or `{issues: [...]}`) as `path: message` lines. */
function issuesOf(details: unknown): string[] {
  const list = Array.isArray(details) ? details : Array.isArray((details as { issues?: unknown[] })?.issues) ? (details as { issues: unknown[] }).issues : [];
  return list.slice(0, 20).map((issue) => {
    const { path, message } = (issue ?? {}) as { path?: unknown; message?: string };
    const where = Array.isArray(path) ? path.join('.') : typeof path === 'string' ? path : '';
    return `${where || '(body)'}: ${message ?? JSON.stringify(issue)}`;
  });
}
