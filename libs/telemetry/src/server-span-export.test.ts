import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeOtlpProtobuf, spanNames } from './fixtures/otlp-protobuf';

const run = promisify(execFile);
const root = path.join(__dirname, '../../..');

describe('server span export', () => {
  it('sends a batch once full, the rest on shutdown, a lone span on its schedule; a collector down costs nothing but the spans', async () => {
    const received: Array<{ names: string[]; key?: string; type?: string }> = [];
    const collector = http.createServer((req, res) => {
      if (req.url === '/count') return res.end(String(received.length));
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          names: spanNames(decodeOtlpProtobuf(Buffer.concat(chunks))),
          key: req.headers['x-api-key'] as string | undefined,
          type: req.headers['content-type'],
        });
        res.end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const down = http.createServer();
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const downPort = (down.address() as AddressInfo).port;
    await new Promise((resolve) => down.close(resolve));
    try {
      const { stdout } = await run(process.execPath, [require.resolve('tsx/cli', { paths: [root] }), path.join(__dirname, 'fixtures/export-server-spans.ts')], {
        cwd: root,
        env: {
          ...process.env,
          COLLECTOR_URL: `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`,
          DOWN_URL: `http://127.0.0.1:${downPort}/v1/traces`,
        },
        timeout: 30_000,
      });
      // The full batch left before anything else was done; 'c' waited for 'd' and the shutdown.
      expect(JSON.parse(stdout)).toEqual({ afterFullBatch: 1, beforeShutdown: 3, downShutdown: 'resolved' });
      expect(received.map((request) => request.names)).toEqual([['GET a', 'GET b'], ['GET c', 'GET d'], ['GET scheduled']]);
      for (const request of received) expect(request).toMatchObject({ key: 'fixture-key', type: 'application/x-protobuf' });
    } finally {
      collector.close();
    }
  });
});
