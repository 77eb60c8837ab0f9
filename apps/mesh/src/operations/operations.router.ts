import { mesh } from '@platform/contracts';
import { inReadScope, type ApiRouter } from '@platform/http';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { z } from 'zod';
import { agentRule } from '../access';
import { callerOf } from '../agents/agents.router';
import type { SubscriberHub } from '../grpc/subscribers';
import type { NodeState } from './operations.state';

const read = { permission: 'mesh:read' };
const admin = { permission: 'mesh:admin' };
const tags = ['operations'];

function heap() {
  const usage = process.memoryUsage();
  return { heap_used: usage.heapUsed, heap_total: usage.heapTotal, rss: usage.rss };
}

let collect: (() => void) | undefined;
/** `global.gc` without starting node with --expose-gc. */
function gc(): void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = (globalThis as { gc?: () => void }).gc ?? (vm.runInNewContext('gc') as () => void);
  }
  collect();
}

export function operationsRoutes(api: ApiRouter, deps: { state: NodeState; hub: SubscriberHub; drain: () => Promise<z.infer<typeof mesh.DrainResult>> }): void {
  const { state, hub } = deps;
  api
    .route({
      method: 'post',
      path: '/drain',
      summary: 'Stop new connections and messages (REST 503, gRPC UNAVAILABLE), finish in-flight work, report NOT_SERVING',
      tags,
      access: admin,
      responses: { 200: { description: 'Draining; in-flight work has finished', schema: mesh.DrainResult } },
      handler: () => deps.drain(),
    })
    .route({
      method: 'get',
      path: '/connections/active',
      summary: 'Open connections of this node: HTTP, WebSocket, gRPC streams and calls',
      tags,
      access: read,
      responses: { 200: { description: 'Connection counts', schema: mesh.ConnectionsActive } },
      handler: () => {
        const streams = hub.all().length;
        return {
          http: state.httpConnections,
          websocket: 0,
          grpc_streams: streams,
          grpc_calls: state.grpcCalls,
          total: state.httpConnections + state.grpcCalls,
          draining: state.draining,
        };
      },
    })
    .route({
      method: 'get',
      path: '/grpc/connections',
      summary: 'Open Subscribe streams of this node (of the agents the caller may read)',
      tags,
      access: read,
      responses: { 200: { description: 'Streams', schema: mesh.GrpcConnections } },
      handler: (req) => {
        const scope = agentRule.readScope(callerOf(req));
        const streams = hub
          .all()
          .filter((s) => inReadScope(scope, s.access))
          .map((s) => ({ id: s.id, agent_id: s.agentId, peer: s.peer, since: s.since.toISOString(), in_flight: s.inFlight, delivered: s.delivered }));
        return { streams, total: streams.length };
      },
    })
    .route({
      method: 'post',
      path: '/grpc/connections/reset',
      summary: 'Close every Subscribe stream (UNAVAILABLE); unacknowledged messages are redelivered when clients reconnect',
      tags,
      access: admin,
      responses: { 200: { description: 'Streams closed', schema: mesh.GrpcResetResult } },
      handler: () => ({ closed: hub.closeAll('reset by an operator') }),
    })
    .route({
      method: 'post',
      path: '/gc/run',
      summary: 'Run a full garbage collection; reports the heap before and after',
      tags,
      access: admin,
      responses: { 200: { description: 'Heap before and after', schema: mesh.GcResult } },
      handler: () => {
        const before = heap();
        gc();
        const after = heap();
        return { before, after, freed: before.heap_used - after.heap_used };
      },
    });
}
