import { startService } from '@platform/service-kit';
import { startFakeOllama, TestIssuer, testDatabaseUrl, testRedisUrl, type FakeOllama } from '@platform/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localModelsService } from '../../src/service';
import { writeTinyLlama } from './gguf';

export interface HarnessOptions {
  /** Start a fake Ollama server and point OLLAMA_URL at it (default true). */
  ollama?: boolean;
  /** Write the tiny GGUF model into the models directory (default true). */
  tinyModel?: boolean;
  env?: Record<string, string>;
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** The service on port 0 with a models directory holding `tiny:latest`, a fake Ollama and a token issuer. */
export async function startHarness(options: HarnessOptions = {}) {
  const issuer = await new TestIssuer().start();
  const modelsDir = mkdtempSync(path.join(tmpdir(), 'local-models-'));
  if (options.tinyModel !== false) writeTinyLlama(path.join(modelsDir, 'tiny.gguf'));
  const ollama: FakeOllama | undefined = options.ollama === false ? undefined : await startFakeOllama();
  const service = await startService(localModelsService, {
    env: {
      PORT: '0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      REDIS_URL: testRedisUrl,
      DATABASE_URL: testDatabaseUrl,
      LOCAL_MODELS_USAGE_FLUSH_MS: '20',
      OLLAMA_URL: ollama?.url ?? '',
      OLLAMA_TAGS_TTL_MS: '1',
      OLLAMA_TIMEOUT: '30',
      LOCAL_MODELS_DIR: modelsDir,
      LOCAL_MODELS_CONTEXT_SIZE: '512',
      LOCAL_MODELS_GPU: 'false',
      LOCAL_MODELS_THREADS: '1',
      LOCAL_MODELS_RATE_LIMIT: '100000',
      LOCAL_MODELS_RATE_LIMIT_BURST: '100000',
      ...options.env,
    },
    verifier: issuer.verifier(),
  });
  return {
    service,
    url: service.url,
    issuer,
    ollama,
    modelsDir,
    /** May list and run models. */
    user: issuer.bearer(['models:read', 'models:invoke']),
    /** May only list them. */
    reader: issuer.bearer(['models:read']),
    async stop() {
      await service.stop();
      await ollama?.stop();
      await issuer.stop();
      rmSync(modelsDir, { recursive: true, force: true });
    },
  };
}

/** The lines of an NDJSON body. */
export const ndjson = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A response body as the tests read it. */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The platform's error in an answer: the `error` object, or on the Ollama routes, which answer
 * `{"error": "<message>"}` as Ollama does, the fields kept beside that text.
 */
export function errorOf(body: Json): Json {
  if (typeof body.error === 'string') return { message: body.error, type: body.type, code: body.code, details: body.details };
  return body.error as Json;
}
