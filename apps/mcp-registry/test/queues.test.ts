import { bullmqConnection } from '@platform/data';
import { spawnService, testRedisUrl, uniqueName } from '@platform/testing';
import { Queue } from 'bullmq';

/**
 * The scheduled-check and on-demand queues are the bootstrap's (`infra.queues`), as in every
 * service: a worker replica reports them in its "listening" line (started once the service is up,
 * closed in the shutdown order), an API replica runs none.
 */
describe('mcp-registry queues', () => {
  const queue = uniqueName('mcp-registry-queues');
  const env = { MCP_HEALTH_QUEUE: queue, MCP_RECONCILE_SCHEDULES: 'false', MCP_STDIO_WORK_ROOT: '/tmp/mcp-registry-test' };
  afterAll(async () => {
    for (const name of [queue, `${queue}.on-demand`]) {
      const leftover = new Queue(name, { connection: bullmqConnection(testRedisUrl, 'worker') });
      await leftover.obliterate({ force: true }).catch(() => undefined);
      await leftover.close();
    }
  });

  const listening = (logs: string[]) =>
    logs
      .map((line) => (line.startsWith('{') ? (JSON.parse(line) as { msg?: string; queues?: string[] }) : {}))
      .find((entry) => entry.msg?.endsWith('listening'));

  it('runs the workers of both queues through the bootstrap in the worker role, and none in the api role', async () => {
    const worker = await spawnService('mcp-registry', { env, args: ['--role', 'worker'] });
    try {
      expect(listening(worker.logs)?.queues?.sort()).toEqual([queue, `${queue}.on-demand`]);
    } finally {
      await worker.stop();
    }
    const api = await spawnService('mcp-registry', { env, args: ['--role', 'api'] });
    try {
      expect(listening(api.logs)?.queues).toEqual([]);
    } finally {
      await api.stop();
    }
  }, 120_000);
});
