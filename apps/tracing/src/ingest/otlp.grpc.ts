import * as grpc from '@grpc/grpc-js';
import { ApiError } from '@platform/http';
import { PermissionError, TokenError, type TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { authenticateIngest, presentedCredential } from './ingest-auth';
import { BufferFullError } from './ingest-buffer';
import type { IngestKeys } from './ingest-keys';
import type { IngestService } from './ingest.service';
import { DecodeError, encodeResponseProtobuf, type PartialSuccess } from './otlp.codec';

export const TRACE_SERVICE = 'opentelemetry.proto.collector.trace.v1.TraceService';
const HEALTH_SERVICE = 'grpc.health.v1.Health';

export interface OtlpGrpcOptions {
  service: IngestService;
  keys: IngestKeys;
  verifier: TokenVerifier;
  /** Largest request message, after decompression (grpc-js answers RESOURCE_EXHAUSTED past it). */
  maxMessageBytes: number;
  logger: Logger;
}

type GrpcError = Partial<grpc.ServiceError>;
const failure = (code: grpc.status, details: string): GrpcError => ({ code, details, message: details });

/**
 * The request stays raw bytes through grpc-js: decoding it in the handler lets a body that is not an
 * ExportTraceServiceRequest answer INVALID_ARGUMENT rather than grpc-js's INTERNAL.
 */
const traceServiceDefinition: grpc.ServiceDefinition = {
  Export: {
    path: `/${TRACE_SERVICE}/Export`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (body: Buffer) => body,
    requestDeserialize: (body: Buffer) => body,
    responseSerialize: (partial: PartialSuccess | undefined) => encodeResponseProtobuf(partial),
    responseDeserialize: (body: Buffer) => body,
  },
};

/** Ingestion failures in gRPC terms, as OTLP exporters read them (UNAVAILABLE is retried). */
function toGrpcError(error: unknown): GrpcError {
  if (error instanceof TokenError) return failure(grpc.status.UNAUTHENTICATED, error.message);
  if (error instanceof ApiError && error.status === 401) return failure(grpc.status.UNAUTHENTICATED, error.message);
  if (error instanceof PermissionError) return failure(grpc.status.PERMISSION_DENIED, error.message);
  if (error instanceof DecodeError) return failure(grpc.status.INVALID_ARGUMENT, error.message);
  if (error instanceof BufferFullError) return failure(grpc.status.UNAVAILABLE, `${error.message}; retry later`);
  // The batch was not committed (database down or too slow): retryable as well.
  return failure(grpc.status.UNAVAILABLE, 'The spans could not be committed; retry later');
}

/**
 * OTLP/gRPC ingestion (`TraceService/Export`, gzip accepted by grpc-js) beside OTLP/HTTP: the same
 * credentials (in metadata), the same decoding and group-commit path, rejected spans in
 * `partial_success`; plus the standard `grpc.health.v1.Health`.
 */
export class OtlpGrpcServer {
  private readonly server: grpc.Server;
  private readonly health = new HealthImplementation({ '': 'SERVING', [TRACE_SERVICE]: 'SERVING', [HEALTH_SERVICE]: 'SERVING' });
  private boundPort = 0;
  private servingStatus: ServingStatus = 'SERVING';

  constructor(private readonly options: OtlpGrpcOptions) {
    this.server = new grpc.Server({ 'grpc.max_receive_message_length': options.maxMessageBytes, 'grpc.max_send_message_length': 64 * 1024 });
    this.server.addService(traceServiceDefinition, {
      Export: (call: grpc.ServerUnaryCall<Buffer, PartialSuccess>, callback: grpc.sendUnaryData<PartialSuccess>) => void this.export(call, callback),
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
      this.server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    return this.boundPort;
  }

  private async export(call: grpc.ServerUnaryCall<Buffer, PartialSuccess>, callback: grpc.sendUnaryData<PartialSuccess>): Promise<void> {
    const { service, keys, verifier } = this.options;
    try {
      try {
        const [apiKey] = call.metadata.get('x-api-key');
        const [authorization] = call.metadata.get('authorization');
        await authenticateIngest(presentedCredential(apiKey, authorization), keys, verifier);
      } catch (error) {
        if (!(error instanceof PermissionError)) service.counters.unauthenticated++;
        throw error;
      }
      const partial = await service.ingest(service.decode('protobuf', call.request));
      callback(null, partial);
    } catch (error) {
      const answer = toGrpcError(error);
      if (answer.code === grpc.status.UNAVAILABLE && !(error instanceof BufferFullError))
        this.options.logger.warn({ err: error }, 'OTLP/gRPC export not committed');
      callback(answer as grpc.ServiceError);
    }
  }

  /** Stops taking calls, lets running exports finish (5 s at most), then closes every connection. */
  async close(): Promise<void> {
    this.servingStatus = 'NOT_SERVING';
    for (const service of ['', TRACE_SERVICE, HEALTH_SERVICE]) this.health.setStatus(service, 'NOT_SERVING');
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
