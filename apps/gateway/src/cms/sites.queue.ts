import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** Site jobs: build a site's pages in the CMS. */
export const siteQueue = defineQueue('gateway.sites', z.object({ siteId: z.string().uuid() }));
