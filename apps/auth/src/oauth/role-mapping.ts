import { z } from 'zod';

/** Group path to role and permissions; a user holds the union over their groups. */
export const RoleMapping = z.object({
  group: z.string().min(1),
  role: z.string().min(1),
  permissions: z.array(z.string()).default([]),
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
}

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
  const described = groups.map((group) => {
    const matched = mappings.filter((mapping) => matches(mapping.group, group.path));
    for (const mapping of matched) {
      roles.add(mapping.role);
      mapping.permissions.forEach((permission) => permissions.add(permission));
    }
    return { id: group.id ?? stableId(group.path), name: group.path, role: matched[0]?.role ?? null };
  });
  return { roles: [...roles], permissions: permissions.has('*') ? ['*'] : [...permissions], groups: described };
}
