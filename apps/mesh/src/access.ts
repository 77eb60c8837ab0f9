import { notFound, OwnershipRule, type Caller, type ReadScope } from '@platform/http';

export type { Caller, ReadScope };

/**
 * The platform's one ownership rule (libs/http) for the mesh's agents, with `mesh:admin`. The 404
 * keeps the mesh's wording (`No agent <id>`), the same for a missing agent and one the caller may
 * not read.
 */
export const agentRule = new OwnershipRule({ admin: 'mesh:admin', notFound: (id) => notFound(`No agent ${id}`) });
