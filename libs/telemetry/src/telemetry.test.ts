import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeOtlpProtobuf, otlpProtobufAsJson, spanNames } from './fixtures/otlp-protobuf';
import { startTelemetry, stopTelemetry } from './index';

const run = promisify(execFile);
const root = path.join(__dirname, '../../..');

/** An OTLP/HTTP collector on a free port, handing each request's whole body to `onExport`. */
async function startCollector(onExport: (req: http.IncomingMessage, body: Buffer) => void): Promise<{ endpoint: string; close: () => void }> {
  const collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      onExport(req, Buffer.concat(chunks));
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, close: () => collector.close() };
}

/**
 * A fixture run in a real process, as a service runs (the exporter does not run inside jest's
 * sandbox), with tracing on and exporting to `endpoint`; its standard output.
 */
async function runFixture(fixture: string, endpoint: string, env: NodeJS.ProcessEnv = {}, timeout = 30_000): Promise<string> {
  const { stdout } = await run(process.execPath, [require.resolve('tsx/cli', { paths: [root] }), path.join(__dirname, 'fixtures', fixture)], {
    cwd: root,
    env: { ...process.env, OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, ...env },
    timeout,
  });
  return stdout;
}

describe('telemetry', () => {
  it('exports spans over OTLP/HTTP, protobuf-encoded, to OTEL_EXPORTER_OTLP_ENDPOINT, and nothing else', async () => {
    const received: Array<{ url?: string; bytes: number; key?: string; type?: string }> = [];
    const collector = await startCollector((req, body) =>
      received.push({ url: req.url, bytes: body.length, key: req.headers['x-api-key'] as string | undefined, type: req.headers['content-type'] }),
    );
    try {
      await runFixture('export-one-span.ts', collector.endpoint, { TRACING_INGEST_KEY: 'fixture-key' });
      expect(received.filter((request) => request.url === '/v1/traces' && request.bytes > 0)).toHaveLength(1);
      expect(received.map((request) => request.url)).toEqual(['/v1/traces']);
      // The tracing service's ingestion key goes with every export.
      expect(received[0].key).toBe('fixture-key');
      expect(received[0].type).toBe('application/x-protobuf');
    } finally {
      collector.close();
    }
  });

  it.each(['http/protobuf', 'http/json'])(
    "makes each sampled request's SERVER span, a child of the caller's traceparent and the parent of its outgoing calls' spans; none for probes or unsampled callers (%s)",
    async (protocol) => {
      const bodies: Buffer[] = [];
      const collector = await startCollector((_req, body) => bodies.push(body));
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentSpanId = '00f067aa0ba902b7';
      const unsampledTraceId = '0af7651916cd43dd8448eb211c80319c';
      try {
        const stdout = await runFixture('serve-one-request.ts', collector.endpoint, {
          FIXTURE_TRACEPARENT: `00-${traceId}-${parentSpanId}-01`,
          FIXTURE_UNSAMPLED_TRACEPARENT: `00-${unsampledTraceId}-${parentSpanId}-00`,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        });
        type Span = {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes: Array<{ key: string; value: Record<string, unknown> }>;
        };
        type ResourceSpans = { resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: Span[] }> };
        const decode = (body: Buffer) =>
          (protocol === 'http/json' ? JSON.parse(body.toString()) : otlpProtobufAsJson(body)) as { resourceSpans: ResourceSpans[] };
        const resourceSpans = bodies.flatMap((body) => decode(body).resourceSpans);
        const spans: Span[] = resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
        // Served and SDK spans alike name the service.
        for (const { resource } of resourceSpans) {
          expect(resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue).toBe('telemetry-fixture');
        }
        // One trace: the caller, the served request, its outgoing call (the SDK's span), the callee's request.
        const served = spans.filter((span) => span.kind === 2); // SERVER
        expect(served.map((span) => span.name).sort()).toEqual(['GET /callee', 'GET /things/:id']);
        const thing = served.find((span) => span.name === 'GET /things/:id')!;
        expect(thing).toMatchObject({ traceId, parentSpanId });
        const calls = spans.filter((span) => span.kind === 3); // CLIENT
        expect(calls).toEqual([expect.objectContaining({ traceId, parentSpanId: thing.spanId })]);
        expect(served.find((span) => span.name === 'GET /callee')).toMatchObject({ traceId, parentSpanId: calls[0]!.spanId });
        // Nothing of the unsampled caller's trace is exported.
        expect(spans.filter((span) => span.traceId === unsampledTraceId)).toEqual([]);
        const attributes = Object.fromEntries(thing.attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
        expect(attributes).toMatchObject({ 'http.route': '/things/:id', 'url.path': '/things/7', 'http.request.method': 'GET', 'thing.id': '7' });
        expect(Number(attributes['http.response.status_code'])).toBe(200);
        // The request id stays in context while tracing runs, traced request or probe.
        const { ids, downstream } = JSON.parse(stdout) as { ids: Array<{ header: string; seen?: string }>; downstream: string[] };
        expect(ids).toHaveLength(3);
        for (const { header, seen } of ids) expect(seen).toBe(header);
        // Callees continue each trace, sampled or not: the outgoing call's span, or the unsampled request's own id.
        expect(downstream).toEqual([`00-${traceId}-${calls[0]!.spanId}-01`, expect.stringMatching(new RegExp(`^00-${unsampledTraceId}-[0-9a-f]{16}-00$`))]);
      } finally {
        collector.close();
      }
    },
  );

  it("sends a service's spans in batches of 4,096 (OpenTelemetry's default is 512): each export costs the service CPU", async () => {
    const batches: number[] = [];
    const collector = await startCollector((_req, body) => batches.push(spanNames(decodeOtlpProtobuf(body)).length));
    try {
      await runFixture(
        'serve-many-requests.ts',
        collector.endpoint,
        // No timer flush on a slow machine: the batch size alone decides.
        { FIXTURE_REQUESTS: '4097', OTEL_BSP_SCHEDULE_DELAY: '600000' },
        60_000,
      );
      // A full batch leaves at once, the one span left on shutdown (the smaller may arrive first).
      expect(batches.sort((a, b) => b - a)).toEqual([4096, 1]);
    } finally {
      collector.close();
    }
  }, 90_000);

  it('does nothing when the SDK is disabled', async () => {
    process.env.OTEL_SDK_DISABLED = 'true';
    startTelemetry('disabled');
    await expect(stopTelemetry()).resolves.toBeUndefined();
  });
});
