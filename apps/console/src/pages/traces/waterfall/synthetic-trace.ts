/**
 * A trace of any size as an OTLP/HTTP JSON `ExportTraceServiceRequest`, for the browser tests and
 * the waterfall benchmark: one root, then servers of a few services fanning out to leaves, every
 * tenth leaf a failure. Times end a second before `endMs`, ids from a seed, so it is reproducible.
 */
export interface SyntheticTraceOptions {
  spans: number;
  traceId: string;
  /** `openinference.project.name` of every resource. */
  project: string;
  services?: readonly string[];
  /** Children of the root; the remaining spans are spread under them. */
  fanOut?: number;
  endMs?: number;
}

export interface SyntheticTrace {
  body: { resourceSpans: unknown[] };
  /** The span ids in the tree order the waterfall draws them. */
  order: string[];
  names: { root: string; server: string; leaf: string };
}

const DEFAULT_SERVICES = ['gateway', 'workflow-engine', 'local-models', 'mcp-registry'];

export function syntheticTrace(options: SyntheticTraceOptions): SyntheticTrace {
  const services = options.services ?? DEFAULT_SERVICES;
  const total = Math.max(1, options.spans);
  const fanOut = Math.min(options.fanOut ?? Math.max(1, Math.round(Math.sqrt(total))), total - 1);
  const leaves = total - 1 - fanOut;
  const endNs = BigInt(Math.round(options.endMs ?? Date.now() - 1000)) * 1_000_000n;
  const durationNs = 2_000_000_000n; // the whole trace: 2 s
  const startNs = endNs - durationNs;
  let counter = 0;
  const spanId = () => (++counter).toString(16).padStart(16, '0').replace(/^0/, 'a');
  const bySpan = new Map<string, unknown[]>(services.map((service) => [service, []]));
  const order: string[] = [];
  const attr = (key: string, value: string | number | boolean) => ({
    key,
    value: typeof value === 'string' ? { stringValue: value } : typeof value === 'boolean' ? { boolValue: value } : { intValue: String(value) },
  });
  const push = (service: string, span: Record<string, unknown>) => {
    bySpan.get(service)!.push({ traceId: options.traceId, ...span });
    order.push(span.spanId as string);
  };

  const rootId = spanId();
  push(services[0], {
    spanId: rootId,
    name: 'POST /api/v1/workflows/execute',
    kind: 2,
    startTimeUnixNano: startNs.toString(),
    endTimeUnixNano: endNs.toString(),
    attributes: [attr('http.request.method', 'POST'), attr('http.route', '/api/v1/workflows/:id/execute'), attr('synthetic.size', total)],
    status: { code: 1 },
  });
  const slot = fanOut > 0 ? durationNs / BigInt(fanOut) : durationNs;
  for (let s = 0; s < fanOut; s++) {
    const service = services[(s % Math.max(1, services.length - 1)) + (services.length > 1 ? 1 : 0)];
    const serverId = spanId();
    const serverStart = startNs + slot * BigInt(s);
    const serverEnd = serverStart + slot - 1_000n;
    push(service, {
      spanId: serverId,
      parentSpanId: rootId,
      name: `${service} handle ${s}`,
      kind: 2,
      startTimeUnixNano: serverStart.toString(),
      endTimeUnixNano: serverEnd.toString(),
      attributes: [attr('server.index', s), attr('http.route', `/step/${s}`)],
      status: { code: 1 },
    });
    const children = Math.floor(leaves / fanOut) + (s < leaves % fanOut ? 1 : 0);
    const step = children > 0 ? (serverEnd - serverStart) / BigInt(children) : 0n;
    for (let c = 0; c < children; c++) {
      const failed = (s * 1000 + c) % 10 === 9;
      const leafStart = serverStart + step * BigInt(c);
      push(service, {
        spanId: spanId(),
        parentSpanId: serverId,
        name: `query ${s}.${c}`,
        kind: 1,
        startTimeUnixNano: leafStart.toString(),
        endTimeUnixNano: (leafStart + (step * 3n) / 4n).toString(),
        attributes: [attr('db.system', 'postgresql'), attr('leaf.index', c)],
        status: failed ? { code: 2, message: 'synthetic failure' } : { code: 0 },
        ...(c === 0 && { events: [{ timeUnixNano: leafStart.toString(), name: 'started', attributes: [attr('leaf.first', true)] }] }),
      });
    }
  }

  return {
    body: {
      resourceSpans: services.map((service) => ({
        resource: { attributes: [attr('service.name', service), attr('openinference.project.name', options.project)] },
        scopeSpans: [{ scope: { name: 'console.synthetic' }, spans: bySpan.get(service) }],
      })),
    },
    order,
    names: { root: 'POST /api/v1/workflows/execute', server: `${services[1 % services.length]} handle 0`, leaf: 'query 0.0' },
  };
}
