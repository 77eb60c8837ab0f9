import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTelemetry, stopTelemetry } from './index';

const run = promisify(execFile);
const root = path.join(__dirname, '../../..');

describe('telemetry', () => {
  it('exports spans over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, and nothing else', async () => {
    const received: Array<{ url?: string; bytes: number; key?: string }> = [];
    const collector = http.createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        received.push({ url: req.url, bytes, key: req.headers['x-api-key'] as string | undefined });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      // A real process, as a service runs it (the exporter does not run inside jest's sandbox).
      await run(process.execPath, [require.resolve('tsx/cli', { paths: [root] }), path.join(__dirname, 'fixtures/export-one-span.ts')], {
        cwd: root,
        env: {
          ...process.env,
          OTEL_SDK_DISABLED: 'false',
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
          TRACING_INGEST_KEY: 'fixture-key',
        },
        timeout: 30_000,
      });
      expect(received.filter((request) => request.url === '/v1/traces' && request.bytes > 0)).toHaveLength(1);
      expect(received.map((request) => request.url)).toEqual(['/v1/traces']);
      // The tracing service's ingestion key goes with every export.
      expect(received[0].key).toBe('fixture-key');
    } finally {
      collector.close();
    }
  });

  it('does nothing when the SDK is disabled', async () => {
    process.env.OTEL_SDK_DISABLED = 'true';
    startTelemetry('disabled');
    await expect(stopTelemetry()).resolves.toBeUndefined();
  });
});
