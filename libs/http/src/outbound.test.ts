import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, isPrivateAddress, OutboundError } from './outbound';

describe('guardedFetch', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/hello') return res.end('hi');
      if (req.url === '/echo') return req.pipe(res);
      if (req.url === '/big') return res.end(Buffer.alloc(4096, 1));
      if (req.url === '/same-host') return res.writeHead(302, { location: '/hello' }).end();
      if (req.url === '/other-host') return res.writeHead(302, { location: 'http://example.invalid/x' }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      // /slow never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const reason = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutboundError);
    return { reason: (error as OutboundError).reason, status: (error as OutboundError).status };
  };

  it('calls an allowed URL and returns status, headers and body', async () => {
    const response = await guardedFetch(
      `${base}/echo`,
      { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } },
      { allowPrivate: true },
    );
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ a: 1 });
  });

  it('refuses loopback, private and link-local addresses unless allowed (400)', async () => {
    expect(await reason(guardedFetch(`${base}/hello`))).toEqual({ reason: 'blocked_address', status: 400 });
    expect(await reason(guardedFetch('http://localhost:1/x'))).toEqual({ reason: 'blocked_address', status: 400 });
    expect(await reason(guardedFetch('http://169.254.169.254/latest/meta-data'))).toEqual({ reason: 'blocked_address', status: 400 });
    expect(await reason(guardedFetch('http://[::ffff:10.0.0.1]/'))).toEqual({ reason: 'blocked_address', status: 400 });
    for (const address of ['10.1.2.3', '192.168.0.1', '172.20.0.1', '::1', 'fe80::1', 'fd00::1', '0.0.0.0']) expect(isPrivateAddress(address)).toBe(true);
    for (const address of ['8.8.8.8', '2606:4700::1111']) expect(isPrivateAddress(address)).toBe(false);
  });

  it('refuses schemes other than http and https', async () => {
    expect(await reason(guardedFetch('file:///etc/passwd'))).toEqual({ reason: 'bad_url', status: 400 });
    expect(await reason(guardedFetch('not a url'))).toEqual({ reason: 'bad_url', status: 400 });
  });

  it('follows redirects on the same host only, and not forever (502)', async () => {
    expect((await guardedFetch(`${base}/same-host`, {}, { allowPrivate: true })).text()).toBe('hi');
    expect(await reason(guardedFetch(`${base}/other-host`, {}, { allowPrivate: true }))).toEqual({ reason: 'redirect_blocked', status: 502 });
    expect(await reason(guardedFetch(`${base}/loop`, {}, { allowPrivate: true }))).toEqual({ reason: 'redirect_blocked', status: 502 });
  });

  it('cuts off a body over the cap and a peer that never answers (502)', async () => {
    expect(await reason(guardedFetch(`${base}/big`, {}, { allowPrivate: true, maxBytes: 1024 }))).toEqual({ reason: 'too_large', status: 502 });
    expect(await reason(guardedFetch(`${base}/slow`, {}, { allowPrivate: true, timeoutMs: 200 }))).toEqual({ reason: 'timeout', status: 502 });
  });

  it('reports an unreachable peer as a network failure and keeps a caller abort', async () => {
    expect(await reason(guardedFetch('http://127.0.0.1:1/x', {}, { allowPrivate: true }))).toEqual({ reason: 'network', status: 502 });
    const controller = new AbortController();
    const pending = guardedFetch(`${base}/slow`, { signal: controller.signal }, { allowPrivate: true });
    controller.abort(new Error('cancelled by the run'));
    await expect(pending).rejects.toThrow('cancelled by the run');
  });
});
