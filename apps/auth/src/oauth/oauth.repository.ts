import type { AuthDatabase } from '../database';

export interface NewAuthorization {
  state: string;
  provider: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  expiresAt: Date;
}

export interface IdpProfile {
  email: string | null;
  name: string | null;
  avatarUrl: string | null;
  roles: string[];
  permissions: string[];
  idpGroups: object;
  lastLoginAt: Date;
}

export interface SealedIdpTokens {
  accessTokenEncrypted: string;
  refreshTokenEncrypted: string | null;
  tokenType: string;
  scope: string;
  expiresAt: Date;
}

export interface StoredProvider {
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  groupsUrl: string | null;
  clientId: string;
  clientSecretEncrypted: string;
  callbackUrl: string;
  scopes: string[];
  createdBy: string;
}

/** The OAuth flow's tables: pending authorizations, identity providers, identity-provider tokens, and the users they sign in. */
export class OAuthRepository {
  constructor(private readonly db: AuthDatabase) {}

  /** Records a pending authorization; false when its state or code challenge was used before. */
  async createAuthorization(data: NewAuthorization): Promise<boolean> {
    try {
      await this.db.oAuthAuthorization.create({ data });
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return false;
      throw error;
    }
  }

  findAuthorization(codeChallenge: string) {
    return this.db.oAuthAuthorization.findUnique({ where: { codeChallenge } });
  }

  /** Marks an authorization used; false when another exchange consumed it first. */
  async consumeAuthorization(state: string): Promise<boolean> {
    const claimed = await this.db.oAuthAuthorization.updateMany({ where: { state, consumedAt: null }, data: { consumedAt: new Date() } });
    return claimed.count > 0;
  }

  latestIdpToken(userId: string) {
    return this.db.idpToken.findFirst({ where: { userId }, orderBy: { updatedAt: 'desc' } });
  }

  idpToken(userId: string, provider: string) {
    return this.db.idpToken.findUnique({ where: { userId_provider: { userId, provider } } });
  }

  async storeIdpToken(userId: string, provider: string, data: SealedIdpTokens): Promise<void> {
    await this.db.idpToken.upsert({ where: { userId_provider: { userId, provider } }, create: { userId, provider, ...data }, update: data });
  }

  /** The user an identity signs in as: updated when known, else created (a taken username gets `@provider`). */
  async upsertIdpUser(provider: string, subject: string, username: string, profile: IdpProfile) {
    const existing = await this.db.user.findUnique({ where: { idpProvider_idpSubject: { idpProvider: provider, idpSubject: subject } } });
    if (existing) return this.db.user.update({ where: { id: existing.id }, data: profile });
    const taken = await this.db.user.findUnique({ where: { username } });
    return this.db.user.create({ data: { username: taken ? `${username}@${provider}` : username, idpProvider: provider, idpSubject: subject, ...profile } });
  }

  findProvider(name: string) {
    return this.db.oAuthProvider.findUnique({ where: { name } });
  }

  upsertProvider(name: string, data: StoredProvider) {
    return this.db.oAuthProvider.upsert({ where: { name }, create: { name, ...data }, update: data });
  }
}
