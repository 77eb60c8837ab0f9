import { auth, TeamRole } from '@platform/contracts';
import { z } from 'zod';

/**
 * Group path to role and permissions; a user holds the union over their groups. `team` also makes
 * the group's members members of that platform team (created at the first sign-in that needs it).
 */
export const RoleMapping = z.object({
  group: z.string().min(1),
  role: z.string().min(1),
  permissions: z.array(z.string()).default([]),
  team: z.object({ name: auth.TeamName, role: TeamRole }).optional(),
});
export type RoleMapping = z.infer<typeof RoleMapping>;

export interface IdpGroup {
  id: number | null;
  path: string;
}

export interface MappedAccess {
  roles: string[];
  permissions: string[];
  groups: Array<{ id: number; name: string; role: string | null }>;
  /** Teams the user's groups map to, each with the highest role any of them gives. */
  teams: Array<{ name: string; role: TeamRole }>;
}

const RANK: Record<TeamRole, number> = { viewer: 0, editor: 1, admin: 2 };

/** `platform/admins` matches that group; `platform/*` matches every group below `platform`. */
function matches(pattern: string, path: string): boolean {
  if (pattern.endsWith('/*')) return path.startsWith(pattern.slice(0, -1));
  return pattern === path;
}

/** A stable positive 31-bit id for groups an identity provider names but does not number. */
function stableId(path: string): number {
  let hash = 0x811c9dc5;
  for (const char of path) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash & 0x7fffffff;
}

/** The union of roles and permissions over every mapping that matches one of the user's groups. */
export function mapGroups(groups: readonly IdpGroup[], mappings: readonly RoleMapping[]): MappedAccess {
  const roles = new Set<string>();
  const permissions = new Set<string>();
  const teams = new Map<string, TeamRole>();
  const described = groups.map((group) => {
    const matched = mappings.filter((mapping) => matches(mapping.group, group.path));
    for (const mapping of matched) {
      roles.add(mapping.role);
      mapping.permissions.forEach((permission) => permissions.add(permission));
      const team = mapping.team;
      if (team && RANK[team.role] >= RANK[teams.get(team.name) ?? 'viewer']) teams.set(team.name, team.role);
    }
    return { id: group.id ?? stableId(group.path), name: group.path, role: matched[0]?.role ?? null };
  });
  return {
    roles: [...roles],
    permissions: permissions.has('*') ? ['*'] : [...permissions],
    groups: described,
    teams: [...teams].map(([name, role]) => ({ name, role })),
  };
}
