import { notFound, OwnershipRule } from '@platform/http';

/** Who may reach everything the tracing service keeps for users: datasets, evaluations, projections. */
export const TRACES_ADMIN = 'traces:admin';

/**
 * The platform's one ownership rule (libs/http, DESIGN.md "Who owns what") per kind of resource,
 * each answering 404 with the message the service always gave for a missing one. Spans and traces
 * are not user resources: they are the platform's telemetry, read with `traces:read`.
 */
export const rules = {
  dataset: new OwnershipRule({ admin: TRACES_ADMIN, notFound: (id) => notFound(`No dataset ${id}`) }),
  evaluation: new OwnershipRule({ admin: TRACES_ADMIN, notFound: (id) => notFound(`No evaluation ${id}`) }),
  projection: new OwnershipRule({ admin: TRACES_ADMIN, notFound: (id) => notFound(`No projection ${id}`) }),
};
