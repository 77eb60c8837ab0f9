import { z } from 'zod';

export const DependencyStatus = z.enum(['up', 'down']);

/** Standard health response of every service (spec 2, DESIGN.md Health). */
export const HealthResponse = z
  .object({
    status: z.enum(['healthy', 'unhealthy']),
    version: z.string(),
    uptime: z.number().int(),
    dependencies: z.record(z.string(), DependencyStatus),
  })
  .meta({ id: 'Health' });
export type HealthResponse = z.infer<typeof HealthResponse>;
