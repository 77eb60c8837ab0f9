import net from 'node:net';
import { cuttableProxy } from './tcp-proxy';

/** An echo server, and a client of the proxy that collects what comes back. */
async function echoBehindProxy() {
  const echo = net.createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const proxy = await cuttableProxy(`tcp://127.0.0.1:${(echo.address() as net.AddressInfo).port}`, 0);
  const connect = async () => {
    const socket = net.connect(Number(new URL(proxy.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    return { socket, received: () => received };
  };
  const close = async () => {
    await proxy.close();
    await new Promise((resolve) => echo.close(resolve));
  };
  return { proxy, connect, close };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('cuttableProxy', () => {
  it('forwards, goes silent while keeping connections open, and lets what waited through on restore', async () => {
    const { proxy, connect, close } = await echoBehindProxy();
    const client = await connect();
    client.socket.write('one');
    await settle();
    expect(client.received()).toBe('one');
    proxy.silence();
    client.socket.write('two');
    const late = await connect();
    late.socket.write('late');
    await settle();
    expect([client.received(), late.received(), client.socket.destroyed]).toEqual(['one', '', false]);
    await proxy.restore();
    await settle();
    expect([client.received(), late.received()]).toEqual(['onetwo', 'late']);
    client.socket.destroy();
    late.socket.destroy();
    await close();
  });

  it('loses bytes on open connections for good, while new connections after restore work', async () => {
    const { proxy, connect, close } = await echoBehindProxy();
    const client = await connect();
    proxy.lose();
    client.socket.write('lost');
    await settle();
    await proxy.restore();
    client.socket.write('still lost');
    const fresh = await connect();
    fresh.socket.write('fresh');
    await settle();
    expect([client.received(), client.socket.destroyed, fresh.received()]).toEqual(['', false, 'fresh']);
    client.socket.destroy();
    fresh.socket.destroy();
    await close();
  });

  it('refuses connections when cut and accepts them again on restore', async () => {
    const { proxy, connect, close } = await echoBehindProxy();
    await proxy.cut();
    expect(proxy.listening()).toBe(false);
    await proxy.restore();
    const client = await connect();
    client.socket.write('back');
    await settle();
    expect(client.received()).toBe('back');
    client.socket.destroy();
    await close();
  });
});
