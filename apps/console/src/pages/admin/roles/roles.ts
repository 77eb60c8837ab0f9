import type { Team, User } from '../auth-api';

export interface RoleSummary {
  role: string;
  users: number;
  /** Every permission a user with the role holds, sorted. */
  permissions: string[];
}

/**
 * The roles users hold, with how many hold each and the permissions they come with. Auth keeps the
 * identity-provider mappings (`AUTH_ROLE_MAPPINGS`) in its configuration, not behind its API: what
 * the console can show is what they produced on the users.
 */
export function summarizeRoles(users: readonly User[]): RoleSummary[] {
  const byRole = new Map<string, { users: number; permissions: Set<string> }>();
  for (const user of users)
    for (const role of user.roles) {
      const entry = byRole.get(role) ?? { users: 0, permissions: new Set<string>() };
      entry.users += 1;
      for (const permission of user.permissions) entry.permissions.add(permission);
      byRole.set(role, entry);
    }
  return [...byRole.entries()]
    .map(([role, entry]) => ({ role, users: entry.users, permissions: [...entry.permissions].sort() }))
    .sort((a, b) => b.users - a.users || a.role.localeCompare(b.role));
}

/** Teams made by a role mapping at an identity-provider sign-in (`createdBy: idp:<provider>`). */
export function mappedTeams(teams: readonly Team[]): Array<Team & { provider: string }> {
  return teams.filter((team) => team.createdBy.startsWith('idp:')).map((team) => ({ ...team, provider: team.createdBy.slice(4) }));
}
