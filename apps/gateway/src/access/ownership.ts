import { notFound, OwnershipRule, type Owned } from '@platform/http';

/**
 * The platform's one ownership rule (DESIGN.md, "Who owns what") for each kind of record the
 * gateway keeps, with the 404 messages the gateway has always given. The same rule as in every
 * service: calling a service through the gateway never reaches more than calling it directly.
 */
export const rules = {
  agent: new OwnershipRule({ admin: 'agents:admin', notFound: (id) => notFound(`No agent ${id}`) }),
  workflow: new OwnershipRule({ admin: 'workflows:admin', notFound: (id) => notFound(`No workflow ${id}`) }),
  site: new OwnershipRule({ admin: 'cms:admin', notFound: (id) => notFound(`No site job ${id}`) }),
  session: new OwnershipRule({ admin: 'studio:admin', notFound: (id) => notFound(`No session ${id}`) }),
};

/** The gateway's rows keep the owner as `ownerSub`: the rule reads it as `owner`. */
export const owned = <T extends { ownerSub: string; team: string | null }>(row: T | null | undefined): (T & Owned) | null =>
  row ? { ...row, owner: row.ownerSub } : null;

/** The columns `readScopeWhere` filters a list on. */
export const scopeColumns = { owner: 'ownerSub', team: 'team' };
