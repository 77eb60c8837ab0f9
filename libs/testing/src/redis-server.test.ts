import net from 'node:net';
import { Redis } from 'ioredis';
import { startPrivateRedis } from './redis-server';

describe('startPrivateRedis', () => {
  it('starts a server of its own that keeps data apart from the shared one, and stops it', async () => {
    const server = await startPrivateRedis();
    const client = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    try {
      await client.connect();
      await client.set('private-key', 'mine');
      expect(await client.get('private-key')).toBe('mine');
      expect(await client.dbsize()).toBe(1);
    } finally {
      client.disconnect();
      await server.stop();
    }
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('fails with the reason when the server binary is missing', async () => {
    await expect(startPrivateRedis('/nonexistent/redis-server')).rejects.toThrow(/could not start \/nonexistent\/redis-server/);
  });
});
