import type { AuthDatabase, Prisma } from '../database';

type Tx = Parameters<Parameters<AuthDatabase['$transaction']>[0]>[0];

const ROTATION_LOCK = 0x6175746b; // pg advisory lock id ("autk"): one rotation at a time across replicas

export interface NewSigningKey {
  kid: string;
  publicJwk: Prisma.InputJsonValue;
  privateKeyEncrypted: string;
  activatesAt: Date;
}

const notExpired = (now: Date) => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });

/** The signing keys inside one rotation (under the rotation lock). */
export class SigningKeysUnit {
  constructor(private readonly tx: Tx) {}

  /** Keys that sign now (activated, not retired). */
  countActive(now: Date): Promise<number> {
    return this.tx.signingKey.count({ where: { activatesAt: { lte: now }, OR: [{ retiredAt: null }, { retiredAt: { gt: now } }] } });
  }

  live(now: Date) {
    return this.tx.signingKey.findMany({ where: notExpired(now), orderBy: { activatesAt: 'asc' } });
  }

  /** Schedules the signing key(s) active at `now` to retire and leave the JWKS. */
  async retireActive(now: Date, retiredAt: Date, expiresAt: Date): Promise<void> {
    await this.tx.signingKey.updateMany({ where: { retiredAt: null, activatesAt: { lte: now } }, data: { retiredAt, expiresAt } });
  }

  async insert(data: NewSigningKey): Promise<void> {
    await this.tx.signingKey.create({ data });
  }
}

/** The RS256 signing keys (private keys sealed). */
export class SigningKeysRepository {
  constructor(private readonly db: AuthDatabase) {}

  /** Keys that have not expired, oldest activation first. */
  live(now: Date) {
    return this.db.signingKey.findMany({ where: notExpired(now), orderBy: { activatesAt: 'asc' } });
  }

  /** Runs `work` in a transaction holding the rotation lock (pg advisory transaction lock). */
  withRotationLock<T>(work: (unit: SigningKeysUnit) => Promise<T>): Promise<T> {
    return this.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ROTATION_LOCK})`;
      return work(new SigningKeysUnit(tx));
    });
  }
}
