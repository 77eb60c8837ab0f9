import { Command, CommanderError, Option } from 'commander';
import { agentCommands } from './commands/agents';
import { authCommands } from './commands/auth';
import { completionCommand } from './commands/completion';
import { mcpCommands } from './commands/mcp';
import { modelCommands } from './commands/models';
import { runCommands } from './commands/runs';
import { traceCommands } from './commands/traces';
import { workflowCommands } from './commands/workflows';
import { DEFAULT_URL, type Io } from './context';
import { describeError, EXIT_CODES_HELP, exitCodeOf, ExitCode } from './exit-codes';

const VERSION = '0.1.0';

/** The `platform` command tree; commands write to `io`. */
export function buildProgram(io: Io): Command {
  const program = new Command('platform')
    .description('The command line of the agent platform, through its gateway')
    .version(VERSION)
    .addOption(new Option('--url <url>', "the platform's gateway").env('PLATFORM_URL').default(DEFAULT_URL))
    .addOption(new Option('-o, --output <format>', 'how data is printed').choices(['table', 'json', 'yaml']).default('table'))
    .showHelpAfterError('(platform --help lists the commands)')
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\nCredentials: $XDG_CONFIG_HOME/platform/credentials.json (or ~/.config/platform/...), mode 0600.`)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  authCommands(program, io);
  agentCommands(program, io);
  workflowCommands(program, io);
  runCommands(program, io);
  traceCommands(program, io);
  mcpCommands(program, io);
  modelCommands(program, io);
  completionCommand(program, io);
  // Commander's own errors (unknown command or option, missing argument) end in exit 2, not 1.
  const exitOverride = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(exitOverride);
  };
  exitOverride(program);
  return program;
}

/** Runs one command line (without `node platform`); the exit code. */
export async function run(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here too, with exit code 0.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.invalidInput;
    }
    for (const line of describeError(error)) io.stderr.write(`${line}\n`);
    return exitCodeOf(error);
  }
}
