import { conflict } from '@platform/http';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit.service';
import type { PasswordWork } from '../crypto/passwords';
import type { UsersRepository } from './users.repository';
import { publicUser } from './users.view';

export class Users {
  constructor(
    private readonly users: UsersRepository,
    private readonly audit: AuditLog,
    private readonly passwords: PasswordWork,
  ) {}

  findByUsername(username: string) {
    return this.users.findByUsername(username);
  }

  async create(input: { username: string; password: string; email?: string; name?: string; roles: string[]; permissions: string[] }, createdBy?: string) {
    const existing = await this.findByUsername(input.username);
    if (existing) throw conflict(`The username ${input.username} is taken`);
    const user = await this.users.create({
      username: input.username,
      passwordHash: await this.passwords.hash(input.password),
      email: input.email ?? null,
      name: input.name ?? null,
      roles: input.roles,
      permissions: input.permissions,
    });
    await this.audit.record({ eventType: 'user_created', userId: user.id, metadata: { createdBy: createdBy ?? 'bootstrap', roles: user.roles } });
    return user;
  }

  async list(page: { limit: number; offset: number }) {
    const { users, total } = await this.users.page(page);
    return { users: users.map(publicUser), total, ...page };
  }

  markLoggedIn(userId: string) {
    return this.users.markLoggedIn(userId);
  }

  /** The bootstrap admin from AUTH_ADMIN_USERNAME / AUTH_ADMIN_PASSWORD, created once. */
  async ensureAdmin(username: string, password: string | undefined, logger: Logger): Promise<void> {
    if (await this.findByUsername(username)) return;
    if (!password) {
      logger.warn({ username }, 'no bootstrap admin: set AUTH_ADMIN_PASSWORD to create one');
      return;
    }
    try {
      await this.create({ username, password, roles: ['admin'], permissions: ['*'] });
      logger.info({ username }, 'bootstrap admin created');
    } catch (error) {
      if ((error as { status?: number }).status !== 409) throw error; // another replica won the race
    }
  }
}
