import { notFound, OwnershipRule } from '@platform/http';

/** The permission that reaches every workflow, execution, batch and collection of every owner. */
export const WORKFLOWS_ADMIN = 'workflows:admin';

/**
 * The platform's ownership rule (libs/http) for each resource of the engine, keeping each one's
 * existing 404 message: one the caller may not read answers exactly as a missing one.
 */
export const rules = {
  workflow: new OwnershipRule({ admin: WORKFLOWS_ADMIN, notFound: (id) => notFound(`No workflow ${id}`) }),
  execution: new OwnershipRule({ admin: WORKFLOWS_ADMIN, notFound: (id) => notFound(`No execution ${id}`) }),
  batch: new OwnershipRule({ admin: WORKFLOWS_ADMIN, notFound: (id) => notFound(`No batch ${id}`) }),
  collection: new OwnershipRule({ admin: WORKFLOWS_ADMIN, notFound: (id) => notFound(`No vector collection ${id}`) }),
};
