import type { Command } from 'commander';
import type { Io } from '../context';
import { CliError, ExitCode } from '../exit-codes';

/** Every command path (`""`, `"agents"`, …) with the words that may follow it. */
function completions(program: Command): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const visit = (command: Command, path: string[]) => {
    const words = [
      ...command.commands.map((sub) => sub.name()),
      ...command.options.map((option) => option.long).filter((long): long is string => !!long),
      ...(path.length ? [] : program.options.map((option) => option.long).filter((long): long is string => !!long)),
      '--help',
    ];
    table.set(path.join(' '), [...new Set(words)]);
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return table;
}

function bash(program: Command): string {
  const cases = [...completions(program)].map(([path, words]) => `    "${path}") words="${words.join(' ')}" ;;`).join('\n');
  return `# platform completion for bash: source <(platform completion bash)
_platform_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word words
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in -*) ;; *) path="\${path:+$path }$word" ;; esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _platform_complete platform
`;
}

function zsh(program: Command): string {
  const cases = [...completions(program)].map(([path, words]) => `    "${path}") words=(${words.join(' ')}) ;;`).join('\n');
  return `#compdef platform
# platform completion for zsh: source <(platform completion zsh)
_platform() {
  local -a words_before words
  words_before=(\${words[2,CURRENT-1]})
  local path="\${(j: :)\${words_before:#-*}}"
  case "$path" in
${cases}
    *) words=() ;;
  esac
  compadd -- $words
}
compdef _platform platform
`;
}

export function completionCommand(program: Command, io: Io): void {
  program
    .command('completion <shell>')
    .description('Print the shell completion script: bash or zsh (source <(platform completion bash))')
    .action((shell: string) => {
      if (shell === 'bash') io.stdout.write(bash(program));
      else if (shell === 'zsh') io.stdout.write(zsh(program));
      else throw new CliError(`no completion for "${shell}": bash or zsh`, ExitCode.invalidInput);
    });
}
