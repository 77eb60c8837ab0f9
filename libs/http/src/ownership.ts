import type { AccessTokenClaims } from '@platform/contracts';
import { hasPermission } from '@platform/jwt';
import { forbidden, notFound, type ApiError } from './errors';

/**
 * Who a resource belongs to: the `sub` of the token that created it and, optionally, a team.
 * `owner: null` marks a row created before owners were recorded: only an admin reaches it.
 */
export interface Owned {
  owner: string | null;
  team?: string | null;
}

/** The parts of a caller's claims the rule reads. */
export type Caller = Pick<AccessTokenClaims, 'sub' | 'permissions' | 'teams'>;

/** The rows a caller may read: all of them (an admin), or those they own or share a team with. */
export type ReadScope = { all: true } | { all: false; owner: string; teams: string[] };

export interface OwnershipRuleOptions {
  /** The permission that reaches every resource of this kind, e.g. `mesh:admin`. */
  admin: string;
  /** The answer for a resource the caller may not read: the same as for one that does not exist. */
  notFound: (id: string) => ApiError;
}

/**
 * The platform's one rule of who may do what to a user's resource (DESIGN.md, "Who owns what"),
 * the same in every service:
 * - read: the owner, a member of the resource's team, or the admin permission;
 * - write, execute, delete: the owner, an editor (or admin) of its team, or the admin permission;
 * - lists show only what the caller may read.
 * A resource the caller may not read answers 404, exactly as a missing one does (no existence
 * leak); one they may read but not change answers 403.
 */
export class OwnershipRule {
  constructor(private readonly options: OwnershipRuleOptions) {}

  /** A rule whose 404 says `<kind> <id> not found`. */
  static of(kind: string, admin: string): OwnershipRule {
    return new OwnershipRule({ admin, notFound: (id) => notFound(`${kind} ${id} not found`) });
  }

  isAdmin(caller: Caller | undefined): boolean {
    return caller !== undefined && hasPermission(caller.permissions, this.options.admin);
  }

  canRead(caller: Caller | undefined, resource: Owned): boolean {
    if (!caller) return false;
    if (this.isAdmin(caller)) return true;
    if (resource.owner === null) return false;
    return resource.owner === caller.sub || teamRole(caller, resource.team) !== undefined;
  }

  canWrite(caller: Caller | undefined, resource: Owned): boolean {
    if (!caller) return false;
    if (this.isAdmin(caller)) return true;
    if (resource.owner === null) return false;
    if (resource.owner === caller.sub) return true;
    const role = teamRole(caller, resource.team);
    return role === 'editor' || role === 'admin';
  }

  /** The resource when the caller may read it; the not-found answer otherwise (missing or not theirs). */
  readable<T extends Owned>(caller: Caller | undefined, resource: T | null | undefined, id: string): T {
    if (!resource || !this.canRead(caller, resource)) throw this.options.notFound(id);
    return resource;
  }

  /** The resource when the caller may change, run or delete it: 404 if they may not read it, 403 if only read. */
  writable<T extends Owned>(caller: Caller | undefined, resource: T | null | undefined, id: string): T {
    const readable = this.readable(caller, resource, id);
    if (!this.canWrite(caller, readable)) {
      throw forbidden(
        readable.owner === null
          ? `This resource has no owner: only ${this.options.admin} may change it`
          : `Only its owner, an editor of its team or ${this.options.admin} may change it`,
        { required: this.options.admin, userPermissions: caller?.permissions ?? [], reason: 'not_owner' },
      );
    }
    return readable;
  }

  /** What a list shows this caller. */
  readScope(caller: Caller | undefined): ReadScope {
    if (this.isAdmin(caller)) return { all: true };
    return { all: false, owner: caller?.sub ?? '', teams: (caller?.teams ?? []).map((team) => team.id) };
  }

  /**
   * The owner and team a new resource records. A team is taken only from a caller who may put
   * things in it (an editor or admin of the team, or the admin permission); 403 otherwise.
   */
  ownerFor(caller: Caller, team?: string | null): { owner: string; team: string | null } {
    if (team && !this.isAdmin(caller)) {
      const role = teamRole(caller, team);
      if (role !== 'editor' && role !== 'admin') {
        throw forbidden(`Only an editor of team ${team} may share a resource with it`, { reason: 'not_team_editor', team });
      }
    }
    return { owner: caller.sub, team: team ?? null };
  }
}

function teamRole(caller: Caller, team: string | null | undefined): string | undefined {
  if (!team) return undefined;
  return caller.teams?.find((membership) => membership.id === team)?.role;
}

/** Whether a row is within a read scope (for lists filtered in memory). */
export function inReadScope(scope: ReadScope, resource: Owned): boolean {
  if (scope.all) return true;
  if (resource.owner === null) return false;
  return resource.owner === scope.owner || (!!resource.team && scope.teams.includes(resource.team));
}

/**
 * A read scope as a Prisma `where` fragment over the columns that hold the owner and team
 * (`{}` for an admin); repositories merge it into their list queries.
 */
export function readScopeWhere(scope: ReadScope, columns: { owner: string; team: string } = { owner: 'owner', team: 'team' }): Record<string, unknown> {
  if (scope.all) return {};
  const anyOf: Record<string, unknown>[] = [{ [columns.owner]: scope.owner }];
  if (scope.teams.length > 0) anyOf.push({ [columns.team]: { in: scope.teams } });
  return { OR: anyOf };
}
