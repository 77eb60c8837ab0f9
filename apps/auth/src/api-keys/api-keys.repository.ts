import type { AuthDatabase } from '../database';

export type ApiKeyRow = Awaited<ReturnType<AuthDatabase['apiKey']['findUniqueOrThrow']>>;

export interface NewApiKey {
  prefix: string;
  secretHash: string;
  service: string;
  permissions: string[];
  createdBy: string;
  expiresAt: Date | null;
  rotatedFrom: string | null;
}

/** The API keys table (secrets only as their hash). */
export class ApiKeysRepository {
  constructor(private readonly db: AuthDatabase) {}

  create(data: NewApiKey): Promise<ApiKeyRow> {
    return this.db.apiKey.create({ data });
  }

  async page(page: { limit: number; offset: number }): Promise<{ keys: ApiKeyRow[]; total: number }> {
    const [keys, total] = await Promise.all([
      this.db.apiKey.findMany({ orderBy: { createdAt: 'asc' }, take: page.limit, skip: page.offset }),
      this.db.apiKey.count(),
    ]);
    return { keys, total };
  }

  findById(id: string): Promise<ApiKeyRow | null> {
    return this.db.apiKey.findUnique({ where: { id } });
  }

  findByPrefix(prefix: string): Promise<ApiKeyRow | null> {
    return this.db.apiKey.findUnique({ where: { prefix } });
  }

  async setEnd(id: string, end: { revokedAt?: Date; expiresAt?: Date | null }): Promise<void> {
    await this.db.apiKey.update({ where: { id }, data: end });
  }

  /** Revokes an active key; false when there is none with this id. */
  async revokeActive(id: string): Promise<boolean> {
    const result = await this.db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    return result.count > 0;
  }

  async markUsed(id: string, at: Date): Promise<void> {
    await this.db.apiKey.update({ where: { id }, data: { lastUsedAt: at } });
  }
}
