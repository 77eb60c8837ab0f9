import type { AccessTokenClaims, TeamRole } from '@platform/contracts';
import { conflict, forbidden, notFound } from '@platform/http';
import { hasPermission } from '@platform/jwt';
import type { AuditLog, AuditOrigin } from '../audit/audit.service';
import type { TeamRow, TeamsRepository } from './teams.repository';
import { publicMember, publicTeam } from './teams.view';

const ADMIN_PERMISSION = 'auth:admin';
const teamNotFound = (id: string) => notFound(`No team with id ${id}`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The caller's user id; undefined for a service (`service:<name>`), which is a member of nothing. */
const userIdOf = (caller: AccessTokenClaims) => (UUID.test(caller.sub) ? caller.sub : undefined);

/**
 * Teams and their members. A team is seen only by its members (and `auth:admin`): to anyone else
 * it answers 404, as a team that does not exist. Its admins (and `auth:admin`) manage members and
 * delete it; a member may always leave. A team keeps at least one admin.
 */
export class Teams {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly audit: AuditLog,
  ) {}

  /** The teams a token issued for this user carries. */
  claimsOf(userId: string) {
    return this.teams.claimsOf(userId);
  }

  /** At an identity-provider sign-in: the user's `idp` memberships become the mapped teams (created when missing). */
  syncIdpMemberships(userId: string, provider: string, wanted: ReadonlyArray<{ name: string; role: TeamRole }>) {
    return this.teams.syncIdp(userId, wanted, `idp:${provider}`);
  }

  async create(name: string, caller: AccessTokenClaims, origin: AuditOrigin) {
    // Service tokens have no user: teams are people's.
    const creator = userIdOf(caller);
    if (!caller.user || !creator || !(await this.teams.userExists(creator))) throw forbidden('Only a user can create a team', { required: 'a user token' });
    const team = await this.teams.create(name, creator);
    if (!team) throw conflict(`A team named ${name} exists`);
    await this.audit.record({ eventType: 'team_created', userId: caller.sub, ...origin, metadata: { teamId: team.id, name } });
    return publicTeam({ ...team, role: 'admin' });
  }

  async list(page: { limit: number; offset: number }, caller: AccessTokenClaims) {
    const me = userIdOf(caller);
    if (!me && !isAdmin(caller)) return { teams: [], total: 0, ...page };
    const { teams, total } = await this.teams.page(page, me, isAdmin(caller));
    return { teams: teams.map(publicTeam), total, ...page };
  }

  async get(id: string, caller: AccessTokenClaims) {
    const { team, role } = await this.visible(id, caller);
    const members = await this.teams.members(id);
    return { ...publicTeam({ ...team, role }), members: members.map(publicMember) };
  }

  async setMember(id: string, userId: string, role: TeamRole, caller: AccessTokenClaims, origin: AuditOrigin) {
    await this.managed(id, caller);
    if (!(await this.teams.userExists(userId))) throw notFound(`No user with id ${userId}`);
    const current = await this.teams.membership(id, userId);
    if (current?.role === 'admin' && role !== 'admin') await this.keepAnAdmin(id);
    await this.teams.setMember(id, userId, role);
    await this.audit.record({
      eventType: 'team_member_set',
      userId,
      ...origin,
      metadata: { teamId: id, role, by: caller.sub, previousRole: current?.role ?? null },
    });
    const member = (await this.teams.members(id)).find((row) => row.userId === userId)!;
    return publicMember(member);
  }

  async removeMember(id: string, userId: string, caller: AccessTokenClaims, origin: AuditOrigin) {
    // Leaving is always allowed; removing someone else needs the team's admin.
    if (userId === caller.sub) await this.visible(id, caller);
    else await this.managed(id, caller);
    const current = await this.teams.membership(id, userId);
    if (!current) throw notFound(`User ${userId} is not a member of team ${id}`);
    if (current.role === 'admin') await this.keepAnAdmin(id);
    await this.teams.removeMember(id, userId);
    await this.audit.record({ eventType: 'team_member_removed', userId, ...origin, metadata: { teamId: id, by: caller.sub } });
  }

  async delete(id: string, caller: AccessTokenClaims, origin: AuditOrigin) {
    const team = await this.managed(id, caller);
    await this.teams.delete(id);
    await this.audit.record({ eventType: 'team_deleted', userId: caller.sub, ...origin, metadata: { teamId: id, name: team.name } });
  }

  /** The team when the caller may see it (a member, or auth:admin); 404 otherwise. */
  private async visible(id: string, caller: AccessTokenClaims): Promise<{ team: TeamRow; role: TeamRole | null }> {
    const team = await this.teams.find(id);
    if (!team) throw teamNotFound(id);
    const me = userIdOf(caller);
    const membership = me === undefined ? undefined : await this.teams.membership(id, me);
    if (!membership && !isAdmin(caller)) throw teamNotFound(id);
    return { team, role: membership?.role ?? null };
  }

  /** The team when the caller may manage it (its admin, or auth:admin): 404 when it may not see it, 403 when it only may. */
  private async managed(id: string, caller: AccessTokenClaims): Promise<TeamRow> {
    const { team, role } = await this.visible(id, caller);
    if (role !== 'admin' && !isAdmin(caller)) throw forbidden('Only an admin of the team manages it', { required: 'team admin', role });
    return team;
  }

  private async keepAnAdmin(id: string): Promise<void> {
    if ((await this.teams.countAdmins(id)) <= 1) throw conflict('A team keeps at least one admin: make another member admin first, or delete the team');
  }
}

const isAdmin = (caller: AccessTokenClaims) => hasPermission(caller.permissions, ADMIN_PERMISSION);
