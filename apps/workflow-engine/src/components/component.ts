import type { JsonApiCmsClient, LocalModelsClient, McpRegistryClient, ServiceClient } from '@platform/clients';
import type { workflowEngine } from '@platform/contracts';
import type { z } from 'zod';
import type { ExpressionEvaluator } from '../expressions/expression-pool';

type ComponentType = workflowEngine.ComponentType;

/** What a component's `run` may use: typed clients, the vector store, and its own sub-runs. */
export interface ComponentContext {
  signal: AbortSignal;
  localModels: LocalModelsClient;
  mcp: McpRegistryClient;
  /** Absent when no CMS is configured (`CMS_URL`). */
  cms?: JsonApiCmsClient;
  cmsClientId: string;
  /** Absent when no SCM is configured (`SCM_URL`). */
  scm?: ServiceClient;
  /** Absent when no images endpoint is configured (`IMAGE_API_URL`). */
  images?: { client: ServiceClient; model: string };
  defaultModel: string;
  embeddingModel: string;
  vectors: VectorStore;
  /** JSONata, evaluated off the event loop with a time and memory budget. */
  expressions: ExpressionEvaluator;
  /** Runs another component (Loop bodies, Parallel tasks), templates already resolved. */
  runComponent: (type: string, data: Record<string, unknown>) => Promise<ComponentResult>;
}

export interface VectorStore {
  search(collection: string, vector: number[], topK: number, minScore: number): Promise<Array<{ id: string; score: number; text: string; metadata: unknown }>>;
}

export interface ComponentResult {
  output: Record<string, unknown>;
  modelUsed?: string;
  tokensUsed?: number;
  entityCreated?: string;
}

export interface ComponentDefinition<S extends z.ZodObject = z.ZodObject> {
  type: ComponentType;
  group: 'AI' | 'CMS' | 'MCP' | 'Logic';
  description: string;
  /** The node's `data` as it must be once its templates are resolved. */
  input: S;
  /** Fields other nodes may reference as `{{<node>.<field>}}`. */
  outputs: readonly string[];
  /**
   * No effect outside the run (Condition, Merge): running it again after a crash changes nothing,
   * so its completion need not be saved before its dependants start.
   */
  pure?: boolean;
  /** Typical seconds, before runs teach a better estimate. */
  typicalSeconds: number;
  run: (data: z.output<S>, context: ComponentContext) => Promise<ComponentResult>;
}

export const defineComponent = <S extends z.ZodObject>(definition: ComponentDefinition<S>) => definition as unknown as ComponentDefinition;
