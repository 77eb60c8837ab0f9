import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, guardedStreamFetch, isPrivateAddress, OutboundError } from './outbound';

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
    const early = new AbortController();
    early.abort(new Error('cancelled before the call'));
    await expect(guardedFetch(`${base}/slow`, { signal: early.signal }, { allowPrivate: true })).rejects.toThrow('cancelled before the call');
  });
});

describe('guardedStreamFetch', () => {
  let server: Server;
  let base: string;
  let requests = 0;
  /** Lets the /stream response end once the test has read its first chunk. */
  let finish: (() => void) | undefined;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests += 1;
      if (req.url === '/echo') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-method': req.method ?? '' });
        return req.pipe(res);
      }
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        finish = () => res.end('data: last\n\n');
        return;
      }
      if (req.url === '/same-host') return res.writeHead(307, { location: '/echo' }).end();
      if (req.url === '/other-host') return res.writeHead(307, { location: 'http://example.invalid/x' }).end();
      if (req.url === '/empty') return res.writeHead(204).end();
      // /slow never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutboundError);
    return { reason: (error as OutboundError).reason, status: (error as OutboundError).status, message: (error as OutboundError).message };
  };

  it('refuses a private address before any request is sent, and allows it when allowPrivate', async () => {
    const before = requests;
    const blocked = guardedStreamFetch();
    expect(await failure(blocked(`${base}/echo`))).toMatchObject({ reason: 'blocked_address', status: 400, message: expect.stringContaining('127.0.0.1') });
    expect(await failure(blocked(`http://localhost:${new URL(base).port}/echo`))).toMatchObject({ reason: 'blocked_address', status: 400 });
    expect(await failure(blocked('http://[::1]/'))).toMatchObject({ reason: 'blocked_address' });
    expect(requests).toBe(before);

    const response = await guardedStreamFetch({ allowPrivate: true })(`${base}/echo`, {
      method: 'POST',
      body: JSON.stringify({ a: 1 }),
      headers: new Headers({ 'content-type': 'application/json' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-method')).toBe('POST');
    expect(response.url).toBe(`${base}/echo`);
    expect(await response.json()).toEqual({ a: 1 });
    expect(requests).toBe(before + 1);
  });

  it('refuses schemes other than http and https', async () => {
    expect(await failure(guardedStreamFetch({ allowPrivate: true })('file:///etc/passwd'))).toMatchObject({ reason: 'bad_url', status: 400 });
    expect(await failure(guardedStreamFetch({ allowPrivate: true })('ws://127.0.0.1/x'))).toMatchObject({ reason: 'bad_url', status: 400 });
  });

  it('streams the body chunk by chunk before the response ends', async () => {
    const response = await guardedStreamFetch({ allowPrivate: true })(`${base}/stream`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // The server has not ended the response: this chunk can only come from a streaming body.
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: first\n\n');
    expect(finish).toBeDefined();
    finish!();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    expect(rest).toBe('data: last\n\n');
  });

  it('follows redirects on the same host only, and returns them as they are under redirect: manual', async () => {
    const fetcher = guardedStreamFetch({ allowPrivate: true });
    const followed = await fetcher(`${base}/same-host`, { method: 'POST', body: 'kept' });
    expect(await followed.text()).toBe('kept');
    expect(await failure(fetcher(`${base}/other-host`))).toMatchObject({ reason: 'redirect_blocked', status: 502 });
    const manual = await fetcher(`${base}/other-host`, { redirect: 'manual' });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe('http://example.invalid/x');
    expect((await fetcher(`${base}/empty`)).status).toBe(204);
  });

  it('times out a peer that never sends its headers, and honours the caller abort before and during the body', async () => {
    expect(await failure(guardedStreamFetch({ allowPrivate: true, timeoutMs: 200 })(`${base}/slow`))).toMatchObject({ reason: 'timeout', status: 502 });
    expect(await failure(guardedStreamFetch({ allowPrivate: true })('http://127.0.0.1:1/x'))).toMatchObject({ reason: 'network', status: 502 });

    const waiting = new AbortController();
    const pending = guardedStreamFetch({ allowPrivate: true })(`${base}/slow`, { signal: waiting.signal });
    waiting.abort(new Error('cancelled by the run'));
    await expect(pending).rejects.toThrow('cancelled by the run');

    const streaming = new AbortController();
    const response = await guardedStreamFetch({ allowPrivate: true })(`${base}/stream`, { signal: streaming.signal });
    const reader = response.body!.getReader();
    await reader.read();
    streaming.abort(new Error('stream no longer wanted'));
    await expect(reader.read()).rejects.toThrow('stream no longer wanted');
  });
});
