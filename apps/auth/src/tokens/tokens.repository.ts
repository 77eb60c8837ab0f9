import type { AuthDatabase } from '../database';

type Tx = Parameters<Parameters<AuthDatabase['$transaction']>[0]>[0];

export type RefreshRow = {
  id: string;
  familyId: string;
  userId: string;
  clientId: string;
  scope: string;
  provider: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
};

export interface NewRefreshToken {
  tokenHash: string;
  familyId: string;
  parentId: string | null;
  userId: string;
  clientId: string;
  scope: string;
  provider: string | null;
  accessJti: string;
  accessExp: number;
  expiresAt: Date;
}

/** Where a refresh token is written: the table, or the table inside a running transaction. */
export interface RefreshTokenSink {
  insert(data: NewRefreshToken): Promise<void>;
}

/** The refresh-token table inside one transaction (a rotation decided under a row lock). */
export class RefreshTokensUnit implements RefreshTokenSink {
  constructor(private readonly tx: Tx) {}

  /** The token's row, locked: two racing refreshes of one token are decided one after the other. */
  async lockByHash(tokenHash: string): Promise<RefreshRow | undefined> {
    const [row] = await this.tx.$queryRaw<RefreshRow[]>`
      SELECT "id", "familyId", "userId", "clientId", "scope", "provider", "expiresAt", "usedAt", "revokedAt"
      FROM "RefreshToken" WHERE "tokenHash" = ${tokenHash} FOR UPDATE`;
    return row;
  }

  /** Whether a token issued in exchange for this one has itself been used. */
  async hasUsedChild(id: string): Promise<boolean> {
    return Boolean(await this.tx.refreshToken.findFirst({ where: { parentId: id, usedAt: { not: null } }, select: { id: true } }));
  }

  /** The user with the teams their next token carries. */
  async userWithTeams(id: string) {
    const user = await this.tx.user.findUnique({
      where: { id },
      include: { memberships: { select: { teamId: true, role: true }, orderBy: { teamId: 'asc' } } },
    });
    if (!user) return null;
    const { memberships, ...rest } = user;
    return { ...rest, teams: memberships.map((membership) => ({ id: membership.teamId, role: membership.role })) };
  }

  async markUsed(id: string): Promise<void> {
    await this.tx.refreshToken.update({ where: { id }, data: { usedAt: new Date() } });
  }

  async insert(data: NewRefreshToken): Promise<void> {
    await this.tx.refreshToken.create({ data });
  }
}

/** Refresh tokens (only their SHA-256 is stored), by family. */
export class TokensRepository implements RefreshTokenSink {
  constructor(private readonly db: AuthDatabase) {}

  async insert(data: NewRefreshToken): Promise<void> {
    await this.db.refreshToken.create({ data });
  }

  transaction<T>(work: (unit: RefreshTokensUnit) => Promise<T>): Promise<T> {
    return this.db.$transaction((tx) => work(new RefreshTokensUnit(tx)));
  }

  /** Revokes the family's tokens; returns the access tokens issued with them that have not expired. */
  async revokeFamily(familyId: string, now: Date): Promise<Array<{ accessJti: string; accessExp: number }>> {
    await this.db.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: now } });
    return this.db.refreshToken.findMany({
      where: { familyId, accessExp: { gt: Math.floor(now.getTime() / 1000) } },
      select: { accessJti: true, accessExp: true },
    });
  }

  findByHash(tokenHash: string) {
    return this.db.refreshToken.findUnique({ where: { tokenHash }, select: { familyId: true, userId: true, provider: true } });
  }
}
