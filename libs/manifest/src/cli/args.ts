import type { ManifestFormat } from '../parse';

export type CliCommand =
  | { command: 'validate'; files: string[]; json: boolean; format?: ManifestFormat; strict: boolean; quiet: boolean }
  | { command: 'schema' }
  | { command: 'help' }
  | { command: 'version' };

export class UsageError extends Error {}

export const USAGE = `Usage:
  agent-manifest validate [options] <file|dir|->...   check agent manifests (JSON or YAML)
  agent-manifest --schema                             print the manifest JSON Schema
  agent-manifest --help | --version

Options of validate:
  --json            print a JSON report instead of text
  --format <f>      read every input as json or yaml (default: detected per file)
  --strict          fail on warnings too
  --quiet, -q       print only files with errors or warnings

A directory is searched for *.json, *.yaml and *.yml files; "-" reads standard input.
Exit status: 0 when every manifest is valid, 1 when one is invalid, 2 on a usage or read error.`;

export function parseArgs(argv: readonly string[]): CliCommand {
  if (argv.length === 0) throw new UsageError('no command given');
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') return { command: 'help' };
  if (first === '--version' || first === '-V') return { command: 'version' };
  if (first === '--schema' || first === 'schema') {
    if (rest.length > 0) throw new UsageError(`${first} takes no arguments; found ${rest.join(' ')}`);
    return { command: 'schema' };
  }
  if (first !== 'validate') throw new UsageError(`unknown command "${first}"; expected validate or --schema`);

  const command: Extract<CliCommand, { command: 'validate' }> = { command: 'validate', files: [], json: false, strict: false, quiet: false };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--json') command.json = true;
    else if (arg === '--strict') command.strict = true;
    else if (arg === '--quiet' || arg === '-q') command.quiet = true;
    else if (arg === '--help' || arg === '-h') return { command: 'help' };
    else if (arg === '--format' || arg.startsWith('--format=')) {
      const value = arg === '--format' ? rest[++i] : arg.slice('--format='.length);
      if (value !== 'json' && value !== 'yaml') throw new UsageError(`--format must be json or yaml; found ${value ?? 'nothing'}`);
      command.format = value;
    } else if (arg === '--') {
      command.files.push(...rest.slice(i + 1));
      break;
    } else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else command.files.push(arg);
  }
  if (command.files.length === 0) throw new UsageError('validate needs at least one file');
  return command;
}
