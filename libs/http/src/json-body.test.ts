import { currentRequestId, requestContext } from '@platform/telemetry';
import express from 'express';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { errorHandler } from './error-handler';
import { jsonDepthVerifier } from './input-guards';
import { jsonBody } from './json-body';
import { createLogger } from '@platform/telemetry';

/** The same echo app behind jsonBody and behind plain express.json: both must answer alike. */
function app(parser: 'jsonBody' | 'express.json') {
  const server = express();
  server.use(requestContext);
  server.use(parser === 'jsonBody' ? jsonBody({ limit: '1kb', verify: jsonDepthVerifier(4) }) : express.json({ limit: '1kb', verify: jsonDepthVerifier(4) }));
  server.post('/echo', (req, res) => void res.json({ body: req.body ?? null, requestId: currentRequestId() ?? null }));
  server.use(errorHandler(createLogger('json-body-test', '0', 'silent')));
  return server;
}

const fast = app('jsonBody');
const reference = app('express.json');

type Send = (test: request.Test) => request.Test;

const cases: Array<[string, Send]> = [
  ['an object', (t) => t.set('Content-Type', 'application/json').send('{"a":[1,{"b":"c"}]}')],
  ['an array with a UTF-8 charset', (t) => t.set('Content-Type', 'application/json; charset=utf-8').send('[1,"é"]')],
  ['a body with a byte order mark', (t) => t.set('Content-Type', 'application/json').send(Buffer.from('\ufeff{"a":1}'))],
  ['an empty body', (t) => t.set('Content-Type', 'application/json').set('Content-Length', '0').send('')],
  ['a JSON scalar (strict: refused)', (t) => t.set('Content-Type', 'application/json').send('"text"')],
  ['whitespace before an object', (t) => t.set('Content-Type', 'application/json').send('  \n{"a":1}')],
  ['malformed JSON', (t) => t.set('Content-Type', 'application/json').send('{"a":')],
  ['nesting past the limit', (t) => t.set('Content-Type', 'application/json').send('{"a":{"b":{"c":{"d":{"e":1}}}}}')],
  ['a body over the limit', (t) => t.set('Content-Type', 'application/json').send(JSON.stringify({ a: 'x'.repeat(2000) }))],
  ['a gzip body', (t) => t.set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(gzipSync('{"zipped":true}'))],
  ['another charset', (t) => t.set('Content-Type', 'application/json; charset=latin1').send('{"a":1}')],
  ['another media type', (t) => t.set('Content-Type', 'text/plain').send('{"a":1}')],
  ['the +json suffix', (t) => t.set('Content-Type', 'application/merge-patch+json').send('{"a":1}')],
  ['no body at all', (t) => t],
];

describe('jsonBody', () => {
  it.each(cases)('answers %s exactly as express.json does, in the request context', async (_name, send) => {
    const ours = await send(request(fast).post('/echo').set('X-Request-Id', 'req-1'));
    const theirs = await send(request(reference).post('/echo').set('X-Request-Id', 'req-1'));
    expect({ status: ours.status, body: ours.body }).toEqual({ status: theirs.status, body: theirs.body });
    // Read after the socket's events, the body still reaches the route (and the error handler)
    // inside the request's context.
    expect(ours.body.requestId).toBe('req-1');
  });
});
