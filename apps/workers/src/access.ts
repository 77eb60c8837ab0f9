import { notFound, OwnershipRule, type Caller, type ReadScope } from '@platform/http';

/**
 * Who may do what to definitions, runs and tasks (DESIGN.md, "Who owns what"): the platform's one
 * rule, with `workers:admin` as the permission that reaches everything. Each keeps this service's
 * existing 404 message, so a resource the caller may not see answers exactly as a missing one.
 */
export const WORKERS_ADMIN = 'workers:admin';

/** A run, by its id. */
export const runRule = new OwnershipRule({ admin: WORKERS_ADMIN, notFound: (id) => notFound(`No workflow run ${id}`) });

/** A task (a step of a run), by its id: the rule of its run. */
export const taskRule = new OwnershipRule({ admin: WORKERS_ADMIN, notFound: (id) => notFound(`No task ${id}`) });

/** A definition name (all its versions), addressed by name or by the id of one of its runs (`pin`). */
export const definitionRule = new OwnershipRule({ admin: WORKERS_ADMIN, notFound: (id) => notFound(`No definition or run ${id}`) });

/** Running a stored definition by name (`POST /workflows` without steps): missing and unreadable look alike. */
export const startRule = new OwnershipRule({ admin: WORKERS_ADMIN, notFound: (name) => notFound(`No definition named ${name}: post its steps`) });

/**
 * Registering a version under a name that exists and that the caller may not read: 404 as the rule
 * says (nothing of the definition is shown), and never a second definition under the same name.
 */
export const registerRule = new OwnershipRule({
  admin: WORKERS_ADMIN,
  notFound: (name) => notFound(`The name ${name} belongs to a definition you cannot see; register your steps under another name`),
});

export type { Caller, ReadScope };

/** A read scope as the three parameters of the raw queries' filter `(all OR owner = $ OR team = ANY($))`. */
export function scopeParams(scope: ReadScope): { all: boolean; owner: string; teams: string[] } {
  return scope.all ? { all: true, owner: '', teams: [] } : { all: false, owner: scope.owner, teams: scope.teams };
}
