import * as grpc from '@grpc/grpc-js';
import { mesh } from '@platform/contracts';
import { ApiError, unavailableDependency } from '@platform/http';
import { hasPermission, type TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { agentRule, type Caller } from '../access';
import type { AgentsService } from '../agents/agents.service';
import type { MessagesService } from '../messages/messages.service';
import type { NodeState } from '../operations/operations.state';
import { HEALTH_SERVICE, MESH_SERVICE, protos } from './proto';
import { Subscriber, type DeliveryFrame, type SubscriberHub } from './subscribers';

export interface GrpcDeps {
  verifier: () => Promise<TokenVerifier>;
  agents: AgentsService;
  messages: MessagesService;
  hub: SubscriberHub;
  state: NodeState;
  logger: Logger;
  /** Called when a stream opens, to take over the agent's delivery. */
  onSubscribe: (agentId: string) => Promise<void>;
}

type Unary<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => void;
type Handler<Req, Res> = (request: Req, caller: Caller) => Promise<Res>;

const PERMISSION = 'mesh:write';
/** A verified token is trusted this long (never past its `exp`): agents call Ack per message. */
const TOKEN_CACHE_MS = 10_000;
const TOKEN_CACHE_SIZE = 10_000;
const MAX_ID = 128;

function status(code: grpc.status, details: string): Partial<grpc.ServiceError> {
  return { code, details, message: details };
}

/** REST errors in gRPC terms: 400 → INVALID_ARGUMENT, 404 → NOT_FOUND, 503 → UNAVAILABLE, ... */
function toGrpcError(error: unknown): Partial<grpc.ServiceError> {
  if (error instanceof ApiError) {
    const code =
      error.status === 400
        ? grpc.status.INVALID_ARGUMENT
        : error.status === 401
          ? grpc.status.UNAUTHENTICATED
          : error.status === 403
            ? grpc.status.PERMISSION_DENIED
            : error.status === 404
              ? grpc.status.NOT_FOUND
              : error.status === 409
                ? grpc.status.ALREADY_EXISTS
                : error.status === 503
                  ? grpc.status.UNAVAILABLE
                  : grpc.status.INTERNAL;
    return status(code, error.message);
  }
  const dependency = unavailableDependency(error);
  if (dependency) return status(grpc.status.UNAVAILABLE, `${dependency === 'cache' ? 'Redis' : 'PostgreSQL'} is unavailable`);
  return status(grpc.status.INTERNAL, 'internal error');
}

function zodDetails(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || 'request'}: ${issue.message}`).join('; ');
}

/**
 * The mesh's gRPC server: `platform.mesh.v1.Mesh` (Register, Heartbeat, Send, Subscribe, Ack) and
 * the standard `grpc.health.v1.Health`. Every Mesh call carries a bearer token with `mesh:write`.
 */
export class MeshGrpcServer {
  readonly server = new grpc.Server({ 'grpc.keepalive_permit_without_calls': 1, 'grpc.max_receive_message_length': 1024 * 1024 });
  readonly health = new HealthImplementation({ '': 'SERVING', [MESH_SERVICE]: 'SERVING', [HEALTH_SERVICE]: 'SERVING' });
  private boundPort = 0;
  private readonly verified = new Map<string, { caller: Caller; until: number }>();
  private servingStatus: ServingStatus = 'SERVING';

  constructor(private readonly deps: GrpcDeps) {
    this.server.addService(protos().Mesh.service, {
      Register: this.unary(this.register),
      Heartbeat: this.unary(this.heartbeat),
      Send: this.unary(this.send),
      Ack: this.unary(this.ack),
      Subscribe: (call: grpc.ServerWritableStream<{ agent_id: string }, DeliveryFrame>) => void this.subscribe(call),
    });
    this.health.addToServer(this.server);
  }

  get port(): number {
    return this.boundPort;
  }

  get status(): ServingStatus {
    return this.servingStatus;
  }

  async listen(host: string, port: number): Promise<number> {
    this.boundPort = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`${host === '0.0.0.0' ? '0.0.0.0' : host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    return this.boundPort;
  }

  /** SERVING or NOT_SERVING for "" and every service, as Watch streams see it. */
  setServing(serving: boolean): void {
    const next: ServingStatus = serving ? 'SERVING' : 'NOT_SERVING';
    if (next === this.servingStatus) return;
    this.servingStatus = next;
    for (const service of ['', MESH_SERVICE, HEALTH_SERVICE]) this.health.setStatus(service, next);
  }

  /** The verified caller of a call (its subject, permissions and teams), holding mesh:write. */
  private async authorize(metadata: grpc.Metadata): Promise<Caller> {
    const header = metadata.get('authorization')[0];
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw status(grpc.status.UNAUTHENTICATED, 'authorization metadata with a Bearer token is required');
    const token = match[1];
    let caller = this.cachedCaller(token);
    if (!caller) {
      try {
        const claims = await (await this.deps.verifier()).verify(token);
        // A delegated token (a service acting for a user) is its subject: the user owns what it does.
        caller = { sub: claims.sub, permissions: claims.permissions, teams: claims.teams };
        if (this.verified.size >= TOKEN_CACHE_SIZE) this.verified.clear();
        this.verified.set(token, { caller, until: Math.min(Date.now() + TOKEN_CACHE_MS, (claims.exp ?? 0) * 1000) });
      } catch (error) {
        throw status(grpc.status.UNAUTHENTICATED, `invalid token: ${(error as { reason?: string }).reason ?? 'invalid_token'}`);
      }
    }
    if (!hasPermission(caller.permissions, PERMISSION)) throw status(grpc.status.PERMISSION_DENIED, `${PERMISSION} is required`);
    return caller;
  }

  private cachedCaller(token: string): Caller | undefined {
    const entry = this.verified.get(token);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.caller;
    this.verified.delete(token);
    return undefined;
  }

  private unary<Req, Res>(handler: Handler<Req, Res>): Unary<Req, Res> {
    return (call, callback) => {
      this.deps.state.grpcCalls += 1;
      (async () => {
        const caller = await this.authorize(call.metadata);
        return handler.call(this, call.request, caller);
      })()
        .then(
          (response) => callback(null, response),
          (error: unknown) =>
            callback(
              (error as { code?: number }).code !== undefined && !(error instanceof ApiError)
                ? (error as grpc.ServiceError)
                : (toGrpcError(error) as grpc.ServiceError),
            ),
        )
        .finally(() => (this.deps.state.grpcCalls -= 1));
    };
  }

  private refuseWhileDraining(): void {
    if (this.deps.state.draining) throw status(grpc.status.UNAVAILABLE, 'this mesh node is draining');
  }

  private async register(
    request: {
      id: string;
      name: string;
      namespace: string;
      capabilities: string[];
      endpoint: string;
      metadata_json: string;
      check_type: string;
      check_target: string;
      ttl_ms: number;
      team: string;
    },
    caller: Caller,
  ) {
    this.refuseWhileDraining();
    let metadata: unknown = {};
    try {
      metadata = request.metadata_json ? JSON.parse(request.metadata_json) : {};
    } catch {
      throw status(grpc.status.INVALID_ARGUMENT, 'metadata_json: not JSON');
    }
    const parsed = mesh.RegisterAgentBody.safeParse({
      ...(request.id && { id: request.id }),
      name: request.name,
      ...(request.namespace && { namespace: request.namespace }),
      capabilities: request.capabilities,
      ...(request.endpoint && { endpoint: request.endpoint }),
      check: {
        type: request.check_type || 'ttl',
        ...(request.check_target && { target: request.check_target }),
        ...(request.ttl_ms && { ttl_ms: request.ttl_ms }),
      },
      metadata,
      ...(request.team && { team: request.team }),
    });
    if (!parsed.success) throw status(grpc.status.INVALID_ARGUMENT, zodDetails(parsed.error));
    const agent = await this.deps.agents.register(parsed.data, caller);
    return {
      id: agent.id,
      name: agent.name,
      namespace: agent.namespace,
      capabilities: agent.capabilities,
      status: agent.status,
      ejected: agent.ejected,
      node_id: agent.node_id ?? '',
      owner: agent.owner ?? '',
      team: agent.team ?? '',
    };
  }

  private async heartbeat(request: { agent_id: string; status: string }, caller: Caller) {
    const agentId = mesh.MeshAgentId.safeParse(request.agent_id);
    const reported = (request.status || 'healthy') as 'healthy' | 'warning' | 'critical';
    if (!agentId.success || !['healthy', 'warning', 'critical'].includes(reported))
      throw status(grpc.status.INVALID_ARGUMENT, 'agent_id and status (healthy, warning, critical) are required');
    const row = await this.deps.agents.report(agentId.data, reported, 'ttl', caller);
    return { status: row.status, ejected: row.ejected };
  }

  private async send(request: { message_id: string; to: string; capability: string; from: string; payload_json: string; ttl_ms: number }, caller: Caller) {
    this.refuseWhileDraining();
    let payload: unknown;
    try {
      payload = JSON.parse(request.payload_json || 'null');
    } catch {
      throw status(grpc.status.INVALID_ARGUMENT, 'payload_json: not JSON');
    }
    const parsed = mesh.SendMessageBody.safeParse({
      ...(request.message_id && { message_id: request.message_id }),
      ...(request.to && { to: request.to }),
      ...(request.capability && { capability: request.capability }),
      ...(request.from && { from: request.from }),
      payload,
      ...(request.ttl_ms && { ttl_ms: request.ttl_ms }),
    });
    if (!parsed.success) throw status(grpc.status.INVALID_ARGUMENT, zodDetails(parsed.error));
    return this.deps.messages.send(parsed.data, caller);
  }

  private async ack(request: { agent_id: string; id: string; ok: boolean; error: string }, caller: Caller) {
    if (!request.agent_id || !request.id || request.agent_id.length > MAX_ID || request.id.length > MAX_ID)
      throw status(grpc.status.INVALID_ARGUMENT, 'agent_id and id are required');
    // Settles only for whoever may act as the agent (its streams were opened by such a caller).
    const stream = this.deps.hub.of(request.agent_id)[0];
    if (stream) agentRule.writable(caller, stream.access, request.agent_id);
    return { acknowledged: this.deps.hub.ack(request.agent_id, request.id, request.ok, request.error) };
  }

  private async subscribe(call: grpc.ServerWritableStream<{ agent_id: string }, DeliveryFrame>): Promise<void> {
    this.deps.state.grpcCalls += 1;
    call.once('close', () => (this.deps.state.grpcCalls -= 1));
    try {
      const caller = await this.authorize(call.metadata);
      this.refuseWhileDraining();
      const agentId = mesh.MeshAgentId.safeParse(call.request.agent_id);
      if (!agentId.success) throw status(grpc.status.INVALID_ARGUMENT, 'agent_id is required');
      // Only the agent's owner, an editor of its team or mesh:admin receives its messages.
      const agent = await this.deps.agents.writable(agentId.data, caller);
      const subscriber = new Subscriber(
        agentId.data,
        { owner: agent.owner, team: agent.team },
        call.getPeer(),
        (frame) => call.write(frame),
        (reason) => call.emit('error', { code: grpc.status.UNAVAILABLE, details: `stream closed by the mesh: ${reason}` }),
      );
      const gone = (why: string) => {
        subscriber.closedBy(why);
        this.deps.hub.remove(subscriber);
      };
      call.once('cancelled', () => gone('cancelled'));
      call.once('close', () => gone('closed'));
      call.once('error', () => gone('error'));
      this.deps.hub.add(subscriber);
      await this.deps.onSubscribe(agentId.data);
    } catch (error) {
      const grpcError = (error as { code?: number }).code !== undefined && !(error instanceof ApiError) ? error : toGrpcError(error);
      call.emit('error', grpcError);
    }
  }

  /** Stops accepting calls; open streams are closed so clients reconnect elsewhere. */
  async close(): Promise<void> {
    this.setServing(false);
    this.deps.hub.closeAll('server shutting down');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 5000);
      timer.unref();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
