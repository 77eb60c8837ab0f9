import { z } from 'zod';

/** `limit` / `offset` paging of every list endpoint (DESIGN.md: default 50, max 500). */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** A boolean query flag: only the words `true` and `false`, not JavaScript truthiness. */
export const QueryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');
