import type { master } from '@platform/contracts';
import type { Queue } from 'bullmq';
import type { EventsRepository } from '../events/events.repository';
import type { MonitoringRepository } from './monitoring.repository';

export type Probe = () => Promise<boolean>;

/** Platform figures gathered from the master's data, its queues and the services it depends on. */
export class MonitoringService {
  constructor(
    private readonly repository: MonitoringRepository,
    private readonly events: EventsRepository,
    private readonly queues: Queue[],
    private readonly probes: Record<string, Probe>,
  ) {}

  async metrics(): Promise<master.Metrics> {
    const [figures, queues, dependencies] = await Promise.all([
      this.repository.figures(),
      Promise.all(this.queues.map(async (queue) => [queue.name, await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed')] as const)),
      Promise.all(Object.entries(this.probes).map(async ([name, probe]) => [name, (await probe().catch(() => false)) ? 'up' : 'down'] as const)),
    ]);
    return { ...figures, queues: Object.fromEntries(queues), dependencies: Object.fromEntries(dependencies), collectedAt: new Date().toISOString() };
  }

  listEvents(query: master.EventQuery) {
    return this.events.list(query);
  }
}
