import type { AuthDatabase } from '../database';

export type UserRow = Awaited<ReturnType<AuthDatabase['user']['findUniqueOrThrow']>>;

export interface NewUser {
  username: string;
  passwordHash: string;
  email: string | null;
  name: string | null;
  roles: string[];
  permissions: string[];
}

/** The users table. */
export class UsersRepository {
  constructor(private readonly db: AuthDatabase) {}

  findByUsername(username: string): Promise<UserRow | null> {
    return this.db.user.findUnique({ where: { username } });
  }

  findById(id: string): Promise<UserRow | null> {
    return this.db.user.findUnique({ where: { id } });
  }

  create(data: NewUser): Promise<UserRow> {
    return this.db.user.create({ data });
  }

  async page(page: { limit: number; offset: number }): Promise<{ users: UserRow[]; total: number }> {
    const [users, total] = await Promise.all([
      this.db.user.findMany({ orderBy: { createdAt: 'asc' }, take: page.limit, skip: page.offset }),
      this.db.user.count(),
    ]);
    return { users, total };
  }

  markLoggedIn(userId: string): Promise<UserRow> {
    return this.db.user.update({ where: { id: userId }, data: { lastLoginAt: new Date() } });
  }
}
