import { unwrap } from '@platform/sdk';
import type { Command } from 'commander';
import { createContext, type Io } from '../context';
import { CliError, ExitCode } from '../exit-codes';
import { prompt } from '../prompt';

export function authCommands(program: Command, io: Io): void {
  program
    .command('login')
    .description('Sign in (password, asked for, or --api-key); the token is kept in ~/.config/platform/credentials.json (mode 0600)')
    .option('-u, --username <name>', 'the user to sign in as (asked for when missing)')
    .option('--api-key <key>', 'sign in with a service API key instead (env PLATFORM_API_KEY)')
    .action(async (options: { username?: string; apiKey?: string }, command: Command) => {
      const context = createContext(command, io);
      const apiKey = options.apiKey ?? io.env.PLATFORM_API_KEY;
      let tokens;
      if (apiKey) tokens = await context.session.loginWithApiKey(apiKey);
      else {
        const username = options.username ?? (await prompt(io, 'Username: '));
        const password = await prompt(io, 'Password: ', true);
        if (!username || !password) throw new CliError('a username and a password are needed', ExitCode.invalidInput);
        tokens = await context.session.loginWithPassword(username, password);
      }
      context.out.data(
        { signedIn: tokens.username ?? 'api key', url: context.url, expiresAt: new Date(tokens.expiresAt).toISOString(), credentials: context.credentialsFile },
        () => `Signed in to ${context.url} as ${tokens.username}; credentials in ${context.credentialsFile}`,
      );
    });

  program
    .command('whoami')
    .description('Who the kept token belongs to, with roles and permissions (checked at auth)')
    .action(async (_options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const token = (await context.session.token())!;
      const answer = await unwrap(platform.auth.POST('/api/v1/auth/validate', { body: { token } }));
      if (!answer.valid) throw new CliError(`the kept token is not valid (${answer.error}): run \`platform login\``, ExitCode.notSignedIn);
      const { sub, roles, permissions, exp } = answer.payload;
      const tokens = await context.session.tokens();
      context.out.data({ username: tokens?.username ?? sub, sub, roles, permissions, url: context.url, expiresAt: new Date(exp * 1000).toISOString() });
    });

  program
    .command('logout')
    .description('Revoke the kept token at auth and forget it')
    .action(async (_options: unknown, command: Command) => {
      const context = createContext(command, io);
      if (!(await context.session.tokens())) {
        context.out.note(`Not signed in to ${context.url}.`);
        return;
      }
      await context.session.logout();
      context.out.data({ signedOut: context.url }, () => `Signed out of ${context.url}; the token is revoked.`);
    });
}
