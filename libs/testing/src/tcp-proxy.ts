import net from 'node:net';

export interface CuttableProxy {
  /** The target URL with its host and port replaced by the proxy's: give it to the service. */
  url: string;
  /** Refuses new connections and drops the open ones: the dependency becomes unreachable. */
  cut(): Promise<void>;
  /** Listens again on the same port: the dependency is back. */
  restore(): Promise<void>;
  listening(): boolean;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a dependency (Postgres, Redis) that a test can cut and restore, so a
 * service started with `proxy.url` sees its dependency go down and come back, for real.
 */
export async function cuttableProxy(targetUrl: string, defaultPort: number): Promise<CuttableProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || defaultPort), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const cut = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), cut, restore: () => listen(port), listening: () => server.listening, close: cut };
}
