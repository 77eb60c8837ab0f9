import type { TeamMembershipClaim, TeamRole } from '@platform/contracts';
import type { AuthDatabase } from '../database';

/** A user id no one has: callers that are not users (services) see their role in no team. */
const NOBODY = '00000000-0000-0000-0000-000000000000';

export type MembershipSource = 'manual' | 'idp';

export interface TeamRow {
  id: string;
  name: string;
  createdBy: string;
  createdAt: Date;
}

export interface MemberRow {
  userId: string;
  username: string;
  role: TeamRole;
  source: MembershipSource;
  createdAt: Date;
}

/** Teams and their members. */
export class TeamsRepository {
  constructor(private readonly db: AuthDatabase) {}

  /** Creates the team with its creator as its first admin; undefined when the name is taken. */
  async create(name: string, creator: string): Promise<TeamRow | undefined> {
    try {
      return await this.db.team.create({
        data: { name, createdBy: creator, members: { create: { userId: creator, role: 'admin', source: 'manual' } } },
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return undefined;
      throw error;
    }
  }

  find(id: string): Promise<TeamRow | null> {
    return this.db.team.findUnique({ where: { id } });
  }

  async members(teamId: string): Promise<MemberRow[]> {
    const rows = await this.db.teamMember.findMany({
      where: { teamId },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
      include: { user: { select: { username: true } } },
    });
    return rows.map((row) => ({ userId: row.userId, username: row.user.username, role: row.role, source: row.source, createdAt: row.createdAt }));
  }

  async membership(teamId: string, userId: string): Promise<{ role: TeamRole; source: MembershipSource } | undefined> {
    const row = await this.db.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { role: true, source: true } });
    return row ?? undefined;
  }

  /** A page of teams, by name: every team (`all`), or those the caller belongs to; each with the caller's role. */
  async page(page: { limit: number; offset: number }, callerId: string | undefined, all: boolean) {
    const where = all ? {} : { members: { some: { userId: callerId ?? NOBODY } } };
    const [teams, total] = await Promise.all([
      this.db.team.findMany({
        where,
        orderBy: [{ name: 'asc' }],
        take: page.limit,
        skip: page.offset,
        include: { members: { where: { userId: callerId ?? NOBODY }, select: { role: true } } },
      }),
      this.db.team.count({ where }),
    ]);
    return { teams: teams.map(({ members, ...team }) => ({ ...team, role: members[0]?.role ?? null })), total };
  }

  userExists(userId: string): Promise<boolean> {
    return this.db.user.count({ where: { id: userId } }).then((count) => count > 0);
  }

  /** Sets a member's role (the membership becomes `manual`: someone chose it). */
  async setMember(teamId: string, userId: string, role: TeamRole): Promise<void> {
    await this.db.teamMember.upsert({
      where: { teamId_userId: { teamId, userId } },
      create: { teamId, userId, role, source: 'manual' },
      update: { role, source: 'manual' },
    });
  }

  /** False when the user was not a member. */
  async removeMember(teamId: string, userId: string): Promise<boolean> {
    const removed = await this.db.teamMember.deleteMany({ where: { teamId, userId } });
    return removed.count > 0;
  }

  countAdmins(teamId: string): Promise<number> {
    return this.db.teamMember.count({ where: { teamId, role: 'admin' } });
  }

  async delete(teamId: string): Promise<void> {
    await this.db.team.deleteMany({ where: { id: teamId } });
  }

  /** The teams a token names for a user: `[{id, role}]`. */
  async claimsOf(userId: string): Promise<TeamMembershipClaim[]> {
    const rows = await this.db.teamMember.findMany({ where: { userId }, orderBy: { teamId: 'asc' }, select: { teamId: true, role: true } });
    return rows.map((row) => ({ id: row.teamId, role: row.role }));
  }

  /**
   * Makes the user's `idp` memberships exactly `wanted` (teams by name, created when missing);
   * `manual` memberships are left as they are, even for a team the identity provider also names.
   */
  async syncIdp(userId: string, wanted: ReadonlyArray<{ name: string; role: TeamRole }>, creator: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      const teamIds: string[] = [];
      for (const { name, role } of wanted) {
        const team = await tx.team.upsert({ where: { name }, create: { name, createdBy: creator }, update: {}, select: { id: true } });
        teamIds.push(team.id);
        const current = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId: team.id, userId } }, select: { source: true } });
        if (current?.source === 'manual') continue;
        await tx.teamMember.upsert({
          where: { teamId_userId: { teamId: team.id, userId } },
          create: { teamId: team.id, userId, role, source: 'idp' },
          update: { role },
        });
      }
      await tx.teamMember.deleteMany({ where: { userId, source: 'idp', teamId: { notIn: teamIds } } });
    });
  }
}
