import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * A port nothing listens on now, for a process that must be told its port before it starts. Taken
 * below the kernel's ephemeral range: a port from `listen(0)`, closed and handed on, is one the kernel
 * gives the next outgoing connection or `listen(0)` of any process in the seconds the service takes
 * to start (seen: EADDRINUSE while a test booted a gateway beside two other services).
 */
export async function freePort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // Not Linux: the usual default.
  }
  const from = Math.min(20_000, low - 1000);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${from} and ${low}`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}
