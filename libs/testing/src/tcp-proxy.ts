import net from 'node:net';

export interface CuttableProxy {
  /** The target URL with its host and port replaced by the proxy's: give it to the service. */
  url: string;
  /** Refuses new connections and drops the open ones: the dependency becomes unreachable. */
  cut(): Promise<void>;
  /**
   * The dependency goes silent: connections (open and new) stay up but carry nothing, as behind a
   * network partition; `restore()` lets what waited through.
   */
  silence(): void;
  /**
   * The open connections lose the bytes that cross them from now on and never carry anything again,
   * while staying open (a half-dead connection); new connections after `restore()` work.
   */
  lose(): void;
  /** Listens again on the same port and forwards again: the dependency is back. */
  restore(): Promise<void>;
  listening(): boolean;
  close(): Promise<void>;
}

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  /** Bytes were dropped on this link: it never forwards again. */
  lost: boolean;
}

/**
 * A TCP proxy in front of a dependency (Postgres, Redis) that a test can cut, silence or make lose
 * bytes, and restore, so a service started with `proxy.url` meets those faults for real.
 */
export async function cuttableProxy(targetUrl: string, defaultPort: number): Promise<CuttableProxy> {
  const target = new URL(targetUrl);
  const links = new Set<Link>();
  let mode: 'forward' | 'silent' | 'lossy' = 'forward';
  const relay = (link: Link, from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk) => {
      if (link.lost) return;
      if (mode === 'lossy') {
        link.lost = true;
        return;
      }
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => mode !== 'silent' && from.resume());
      }
    });
    from.on('end', () => to.end());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || defaultPort), target.hostname);
    const link: Link = { client, upstream, lost: false };
    links.add(link);
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        links.delete(link);
        client.destroy();
        upstream.destroy();
      });
      if (mode === 'silent') socket.pause();
    }
    relay(link, client, upstream);
    relay(link, upstream, client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const eachSocket = (act: (socket: net.Socket) => void) => {
    for (const link of links) for (const socket of [link.client, link.upstream]) act(socket);
  };
  const cut = () =>
    new Promise<void>((resolve) => {
      eachSocket((socket) => socket.destroy());
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    cut,
    silence: () => {
      mode = 'silent';
      eachSocket((socket) => socket.pause());
    },
    lose: () => {
      mode = 'lossy';
    },
    restore: async () => {
      mode = 'forward';
      eachSocket((socket) => socket.resume());
      if (!server.listening) await listen(port);
    },
    listening: () => server.listening,
    close: cut,
  };
}
