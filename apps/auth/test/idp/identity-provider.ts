import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The real OpenID provider of ./oidc-provider.mjs, in a child process on loopback. */
export class TestIdentityProvider {
  issuer = '';
  private child?: ChildProcess;

  constructor(readonly redirectUri: string) {}

  async start(): Promise<this> {
    this.child = spawn(process.execPath, [path.join(__dirname, 'oidc-provider.mjs')], {
      env: { ...process.env, REDIRECT_URI: this.redirectUri },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.issuer = await new Promise<string>((resolve, reject) => {
      this.child!.once('exit', (code) => reject(new Error(`identity provider exited with ${code}`)));
      this.child!.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString().split('\n')[0]!).issuer));
    });
    return this;
  }

  stop(): void {
    this.child?.kill();
  }

  /** Which account the next sign-in at the provider authenticates. */
  async signInAs(account: 'alice' | 'dave' | 'bob'): Promise<void> {
    await fetch(`${this.issuer}/test/account/${account}`, { method: 'POST' });
  }

  /**
   * Follows the provider's redirects from the authorization URL, carrying its cookies, until it
   * sends the browser back to the redirect URI; returns that URL's query (code and state).
   */
  async authorize(authorizationUrl: string): Promise<URLSearchParams> {
    const cookies = new Map<string, string>();
    let next = authorizationUrl;
    for (let hop = 0; hop < 10; hop++) {
      if (next.startsWith(this.redirectUri)) return new URL(next).searchParams;
      const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
      for (const header of response.headers.getSetCookie()) {
        const [pair] = header.split(';');
        const [name, ...value] = pair!.split('=');
        cookies.set(name!.trim(), value.join('='));
      }
      const location = response.headers.get('location');
      if (!location) throw new Error(`the provider stopped at ${next} with ${response.status}: ${await response.text()}`);
      next = new URL(location, next).toString();
    }
    throw new Error('too many redirects at the identity provider');
  }
}
