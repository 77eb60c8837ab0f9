import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** Scheduled mirroring of the peers' catalogs: one job syncs every peer, or the one named. */
export const federationSyncQueue = defineQueue('master.federation-sync', z.object({ peerId: z.uuid().optional() }));
