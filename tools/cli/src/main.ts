import { run } from './program';

/** `platform …`: the process's arguments and streams; the exit code set when the command ends. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await run(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
}
