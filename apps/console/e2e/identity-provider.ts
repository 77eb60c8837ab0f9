import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { adminAccessToken, gatewayUrl, platformUrls } from './fixtures';
import { OAUTH_PROVIDER, ROOT } from './paths';

export interface IdentityProvider {
  issuer: string;
  /** Whom the provider signs in next: `alice` (platform/admins), `dave` (developers), `bob` (no mapped group). */
  choose(account: 'alice' | 'dave' | 'bob'): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real OpenID provider (auth's own OAuth tests' oidc-provider, as a child process), configured at
 * auth as the provider the gateway offers the console, its redirect the gateway's callback.
 */
export async function startIdentityProvider(): Promise<IdentityProvider> {
  const callback = `${gatewayUrl()}/api/v1/console/oauth/${OAUTH_PROVIDER}/callback`;
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'apps/auth/test/idp/oidc-provider.mjs')], {
    env: { ...process.env, REDIRECT_URI: callback },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const issuer = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the identity provider exited with ${code}`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString().split('\n')[0]!) as { issuer: string }).issuer));
  });
  const configured = await fetch(`${platformUrls().auth}/api/v1/auth/oauth/configure`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await adminAccessToken()}` },
    body: JSON.stringify({
      provider: OAUTH_PROVIDER,
      config: {
        authorizationURL: `${issuer}/auth`,
        tokenURL: `${issuer}/token`,
        userInfoURL: `${issuer}/me`,
        clientID: 'platform-test-client',
        clientSecret: 'platform-test-secret',
        callbackURL: callback,
        scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
      },
    }),
  });
  if (!configured.ok) throw new Error(`configuring the provider at auth answered ${configured.status}: ${await configured.text()}`);
  return {
    issuer,
    choose: async (account) => void (await fetch(`${issuer}/test/account/${account}`, { method: 'POST' })),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
