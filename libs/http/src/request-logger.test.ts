import express from 'express';
import pino from 'pino';
import { Writable } from 'node:stream';
import request from 'supertest';
import { requestContext } from '@platform/telemetry';
import { requestLogger } from './request-logger';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

function app(level: string) {
  const { logger, lines } = capture(level);
  const server = express();
  server.use(requestContext, requestLogger(logger));
  server.get('/ok', (_req, res) => void res.json({}));
  server.get('/missing', (_req, res) => void res.status(404).json({}));
  server.get('/broken', (_req, res) => void res.status(500).json({}));
  server.get('/health/live', (_req, res) => void res.status(500).json({}));
  return { server, lines };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('requestLogger', () => {
  it('logs a 5xx at error with the request id, and never the query string', async () => {
    const { server, lines } = app('info');
    const res = await request(server).get('/broken?access_token=secret-value');
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, method: 'GET', path: '/broken', status: 500, requestId: res.headers['x-request-id'] });
    expect(JSON.stringify(lines)).not.toContain('secret-value');
  });

  it('logs expected 4xx at info, successes only at debug, and health checks not at all', async () => {
    const { server, lines } = app('info');
    await request(server).get('/ok');
    await request(server).get('/missing');
    await request(server).get('/health/live');
    await settle();
    expect(lines.map((line) => [line.level, line.status])).toEqual([[30, 404]]);
    const verbose = app('debug');
    await request(verbose.server).get('/ok');
    await settle();
    expect(verbose.lines[0]).toMatchObject({ level: 20, status: 200, durationMs: expect.any(Number) });
  });
});
