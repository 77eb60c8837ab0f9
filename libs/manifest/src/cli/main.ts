import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_VERSION } from '../enums';
import { manifestJsonSchema } from '../json-schema';
import { validateManifest } from '../validate';
import { parseArgs, USAGE, UsageError } from './args';
import { COLOURS, jsonReport, passed, PLAIN, textReport, type FileReport } from './report';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => string;
  colour: boolean;
}

export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

const MANIFEST_FILE = /\.(json|ya?ml)$/i;

/** Runs the `agent-manifest` command line; returns the exit status. */
export function runCli(argv: readonly string[], io: CliIo): number {
  let command;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`agent-manifest: ${error.message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  switch (command.command) {
    case 'help':
      io.stdout(`${USAGE}\n`);
      return EXIT.ok;
    case 'version':
      io.stdout(`agent-manifest (manifest schema ${SCHEMA_VERSION})\n`);
      return EXIT.ok;
    case 'schema':
      io.stdout(`${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
      return EXIT.ok;
  }

  const reports: FileReport[] = [];
  let unreadable = false;
  for (const file of expandInputs(command.files, () => (unreadable = true), reports)) {
    let text: string;
    try {
      text = file === '-' ? io.readStdin() : readFileSync(file, 'utf8');
    } catch (error) {
      unreadable = true;
      reports.push({ file, readError: readErrorMessage(error as NodeJS.ErrnoException) });
      continue;
    }
    reports.push({ file: file === '-' ? '<stdin>' : file, result: validateManifest(text, { format: command.format, strict: command.strict }) });
  }

  if (command.json) io.stdout(jsonReport(reports, command.strict));
  else io.stdout(textReport(reports, { strict: command.strict, quiet: command.quiet, style: io.colour ? COLOURS : PLAIN }));
  if (unreadable) return EXIT.usage;
  return reports.every((report) => passed(report, command.strict)) ? EXIT.ok : EXIT.invalid;
}

function readErrorMessage(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'cannot read the file: no such file';
  if (error.code === 'EACCES') return 'cannot read the file: permission denied';
  return `cannot read the file: ${error.message}`;
}

/** Files as given; directories searched for manifest files (sorted, hidden and node_modules skipped). */
function expandInputs(inputs: readonly string[], onMissing: () => void, reports: FileReport[]): string[] {
  const files: string[] = [];
  for (const input of inputs) {
    if (input === '-') {
      files.push(input);
      continue;
    }
    let isDirectory = false;
    try {
      isDirectory = statSync(input).isDirectory();
    } catch {
      // reported when read
    }
    if (!isDirectory) {
      files.push(input);
      continue;
    }
    const found = walk(input);
    if (found.length === 0) {
      onMissing();
      reports.push({ file: input, readError: 'the directory holds no *.json, *.yaml or *.yml file' });
    }
    files.push(...found);
  }
  return files;
}

function walk(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...walk(path));
    else if (MANIFEST_FILE.test(entry.name)) files.push(path);
  }
  return files;
}

/** Entry point for the `agent-manifest` bin. */
export function main(): void {
  process.exitCode = runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: () => readFileSync(0, 'utf8'),
    colour: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  });
}

if (require.main === module) main();
