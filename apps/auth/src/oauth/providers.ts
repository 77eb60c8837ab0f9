import { badRequest } from '@platform/http';
import type { AuthConfig } from '../service';
import type { SecretBox } from '../crypto/secret-box';
import type { OAuthRepository } from './oauth.repository';

export interface ProviderConfig {
  name: string;
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  groupsUrl: string | null;
  clientId: string;
  clientSecret: string;
  callbackUrl: string;
  scopes: string[];
}

const GITLAB_SCOPES = ['read_user', 'read_api'];

/**
 * Identity providers: a GitLab-shaped one built in from configuration, and custom ones added by
 * admins through /oauth/configure (client secrets encrypted at rest). A stored provider of the same
 * name takes precedence over the built-in one.
 */
export class OAuthProviders {
  constructor(
    private readonly store: OAuthRepository,
    private readonly box: SecretBox,
    private readonly config: AuthConfig,
  ) {}

  private builtIn(name: string): ProviderConfig | undefined {
    const { AUTH_GITLAB_URL: base, AUTH_GITLAB_CLIENT_ID: clientId, AUTH_GITLAB_CLIENT_SECRET: clientSecret } = this.config;
    if (name !== 'gitlab' || !clientId || !clientSecret) return undefined;
    const root = base.replace(/\/$/, '');
    return {
      name,
      authorizationUrl: `${root}/oauth/authorize`,
      tokenUrl: `${root}/oauth/token`,
      userInfoUrl: `${root}/api/v4/user`,
      groupsUrl: `${root}/api/v4/groups?min_access_level=10&per_page=100`,
      clientId,
      clientSecret,
      callbackUrl: this.config.AUTH_GITLAB_CALLBACK_URL ?? `${this.config.AUTH_PUBLIC_URL.replace(/\/$/, '')}/oauth/callback`,
      scopes: GITLAB_SCOPES,
    };
  }

  async find(name: string): Promise<ProviderConfig | undefined> {
    const stored = await this.store.findProvider(name);
    if (!stored) return this.builtIn(name);
    return {
      name: stored.name,
      authorizationUrl: stored.authorizationUrl,
      tokenUrl: stored.tokenUrl,
      userInfoUrl: stored.userInfoUrl,
      groupsUrl: stored.groupsUrl,
      clientId: stored.clientId,
      clientSecret: this.box.open(stored.clientSecretEncrypted),
      callbackUrl: stored.callbackUrl,
      scopes: stored.scopes,
    };
  }

  async configure(
    name: string,
    input: {
      authorizationURL: string;
      tokenURL: string;
      userInfoURL: string;
      groupsURL?: string;
      clientID: string;
      clientSecret: string;
      callbackURL: string;
      scopes?: string[];
    },
    actor: string,
  ) {
    if (this.config.NODE_ENV === 'production') {
      const endpoints = [input.authorizationURL, input.tokenURL, input.userInfoURL, ...(input.groupsURL ? [input.groupsURL] : [])];
      if (endpoints.some((url) => !url.startsWith('https://'))) throw badRequest('Identity-provider endpoints must use https in production');
    }
    const data = {
      authorizationUrl: input.authorizationURL,
      tokenUrl: input.tokenURL,
      userInfoUrl: input.userInfoURL,
      groupsUrl: input.groupsURL ?? null,
      clientId: input.clientID,
      clientSecretEncrypted: this.box.seal(input.clientSecret),
      callbackUrl: input.callbackURL,
      scopes: input.scopes ?? GITLAB_SCOPES,
      createdBy: actor,
    };
    return this.store.upsertProvider(name, data);
  }
}
