import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { CONSOLE_CSP, defaultConsoleDir } from '../src/console/static-console';
import { startGateway, type Gateway } from './harness';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';

/** A raw GET, its path sent exactly as written (clients normalise `..` away; attackers do not). */
function rawGet(url: string, rawPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { path: rawPath }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console at the gateway origin', () => {
  let g: Gateway;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'console-'));
    mkdirSync(path.join(dir, 'assets'));
    mkdirSync(path.join(dir, '.vite'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(path.join(dir, 'assets/index-abc123.js'), 'console.log("console");');
    writeFileSync(path.join(dir, '.vite/manifest.json'), '{}');
    // A secret beside the console directory: nothing may reach it.
    writeFileSync(path.join(path.dirname(dir), `${path.basename(dir)}-secret.txt`), 'TOP-SECRET-CONTENT');
    g = await startGateway({ GATEWAY_CONSOLE_DIR: dir });
  });
  afterAll(async () => {
    await g.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(path.dirname(dir), `${path.basename(dir)}-secret.txt`), { force: true });
  });

  it('serves index.html at / and at every console path, with a strict policy and no caching', async () => {
    for (const page of ['/', '/agents', '/workflows/abc/runs?tab=graph', '/traces/deep/path']) {
      const res = await request(g.app).get(page);
      expect({ page, status: res.status }).toEqual({ page, status: 200 });
      expect(res.text).toBe(INDEX);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(CONSOLE_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
        "font-src 'self' data:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    );
    const favicon = await request(g.app).get('/favicon.svg');
    expect(favicon.status).toBe(200);
    expect(favicon.headers['content-type']).toMatch(/^image\/svg\+xml/);
  });

  it("caches Vite's hashed assets for a year, and a missing asset is a 404, not the page", async () => {
    const asset = await request(g.app).get('/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.text).toBe('console.log("console");');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await request(g.app).get('/assets/index-gone.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('not_found_error');
  });

  it("leaves the platform's paths to the platform: unknown API paths stay JSON 404s", async () => {
    for (const page of ['/api/v1/nothing', '/v1/nothing', '/api']) {
      const res = await request(g.app).get(page);
      expect({ page, status: res.status, code: res.body.error?.code }).toEqual({ page, status: 404, code: 'route_not_found' });
    }
    expect((await request(g.app).get('/health')).body).toMatchObject({ status: expect.any(String) });
    expect((await request(g.app).get('/openapi.json')).body.openapi).toMatch(/^3\.1/);
    expect((await request(g.app).get('/metrics')).text).toContain('# HELP');
    expect((await request(g.app).get('/docs')).text).toContain('swagger');
  });

  it('refuses path traversal and hidden files, plain or encoded', async () => {
    const name = `${path.basename(dir)}-secret.txt`;
    for (const raw of [
      '/assets/../../etc/passwd',
      `/assets/../../${name}`,
      `/../${name}`,
      '/assets/%2e%2e/%2e%2e/etc/passwd',
      `/%2e%2e/${name}`,
      '/assets/..%2f..%2fetc%2fpasswd',
      `/..%5c${name}`,
      '/.vite/manifest.json',
      '/assets/%00.js',
    ]) {
      const res = await rawGet(g.service.url, raw);
      expect({ raw, status: res.status }).toEqual({ raw, status: 404 });
      expect(res.body).not.toContain('TOP-SECRET-CONTENT');
      expect(res.body).not.toContain('root:');
    }
  });

  it('answers 503 saying how to build it when the console is not built, and keeps serving the API', async () => {
    const unbuilt = await startGateway({ GATEWAY_CONSOLE_DIR: path.join(dir, 'not-built') });
    try {
      const res = await request(unbuilt.app).get('/agents');
      expect(res.status).toBe(503);
      expect(res.body.error.message).toContain('npx nx run console:build');
      expect((await request(unbuilt.app).get('/health/live')).status).toBe(200);
    } finally {
      await unbuilt.stop();
    }
  });

  it("finds the repository's dist/apps/console by default, from its own directory", () => {
    expect(defaultConsoleDir()).toBe(path.resolve(__dirname, '../../../dist/apps/console'));
  });
});
