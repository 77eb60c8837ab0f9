import { JsonApiCmsClient } from '@platform/clients';
import type { workflowEngine } from '@platform/contracts';
import { z } from 'zod';
import { defineComponent, type ComponentContext, type ComponentDefinition } from './component';
import { ExpressionBudgetError } from '../expressions/expression-pool';
import { configError, NodeError } from './node-error';

type ComponentType = workflowEngine.ComponentType;

const text = (max = 100_000) => z.string().max(max);
const modelName = z.string().min(1).max(200);
/** The CMS entity nodes' shared inputs: a bundle (content type) and the caller's own CMS token. */
const cmsBundle = z
  .string()
  .regex(/^[a-z0-9_]{1,64}$/)
  .default('article');
const cmsToken = z.string().max(4096).optional();
const SubTask = z.object({ type: z.string().max(64), data: z.record(z.string(), z.unknown()).default({}) });

function requireCms(context: ComponentContext): JsonApiCmsClient {
  if (!context.cms) throw configError('No CMS is configured: set CMS_URL (and CMS_API_KEY) on the workflow engine');
  return context.cms;
}

function mcpText(content: unknown[]): string {
  return content
    .map((item) => (item && typeof item === 'object' && (item as { type?: string }).type === 'text' ? String((item as { text?: unknown }).text ?? '') : ''))
    .filter(Boolean)
    .join('\n');
}

async function connectionFor(context: ComponentContext, connectionId: string | undefined, capability: string): Promise<string> {
  if (connectionId) return connectionId;
  const found = await context.mcp.discover(
    { capabilities: [capability], loadBalancing: { strategy: 'least-loaded', maxConnections: 1 } },
    { signal: context.signal },
  );
  const first = found.connections[0];
  if (!first) throw new NodeError('NO_PROVIDER', `No MCP connection in the registry offers ${capability}`, false);
  return first.id;
}

async function callTool(context: ComponentContext, connectionId: string | undefined, tool: string, args: Record<string, unknown>, timeout?: number) {
  const id = await connectionFor(context, connectionId, tool);
  const answer = await context.mcp.callTool(id, tool, args, { signal: context.signal, toolTimeoutMs: timeout, timeoutMs: (timeout ?? 30_000) + 5000 });
  if (!answer.success || answer.result.isError)
    throw new NodeError('TOOL_ERROR', `The tool ${tool} reported an error: ${mcpText(answer.result.content).slice(0, 500) || 'no detail'}`, false);
  return { id, answer };
}

/** The node error of an expression stopped for its budget: not retried, it would spend it again. */
const BUDGET_CODES: Record<string, string> = {
  timeout: 'EXPRESSION_TIMEOUT',
  memory: 'EXPRESSION_MEMORY',
  result: 'EXPRESSION_MEMORY',
  crashed: 'EXPRESSION_MEMORY',
};

const entityView = (resource: { id: string; type: string; attributes: Record<string, unknown> }) => ({
  id: resource.id,
  type: resource.type,
  ...resource.attributes,
});

/** GitLab-style REST calls a ScmAPI node may make: method, path (from params), body. */
const SCM_ACTIONS: Record<string, { method: string; path: (p: Record<string, string>) => string; query?: string[]; body?: string[]; required: string[] }> = {
  get_project: { method: 'GET', path: (p) => `/api/v4/projects/${encodeURIComponent(p.project)}`, required: ['project'] },
  list_issues: { method: 'GET', path: (p) => `/api/v4/projects/${encodeURIComponent(p.project)}/issues`, query: ['state', 'labels'], required: ['project'] },
  create_issue: {
    method: 'POST',
    path: (p) => `/api/v4/projects/${encodeURIComponent(p.project)}/issues`,
    body: ['title', 'description', 'labels'],
    required: ['project', 'title'],
  },
  list_merge_requests: {
    method: 'GET',
    path: (p) => `/api/v4/projects/${encodeURIComponent(p.project)}/merge_requests`,
    query: ['state'],
    required: ['project'],
  },
  create_merge_request_note: {
    method: 'POST',
    path: (p) => `/api/v4/projects/${encodeURIComponent(p.project)}/merge_requests/${encodeURIComponent(p.merge_request_iid)}/notes`,
    body: ['body'],
    required: ['project', 'merge_request_iid', 'body'],
  },
  get_file: {
    method: 'GET',
    path: (p) => `/api/v4/projects/${encodeURIComponent(p.project)}/repository/files/${encodeURIComponent(p.file_path)}`,
    query: ['ref'],
    required: ['project', 'file_path', 'ref'],
  },
};

const components: ComponentDefinition[] = [
  defineComponent({
    type: 'LLMNode',
    group: 'AI',
    description: 'A completion from the local-models service (/api/generate)',
    input: z.object({
      prompt: text().min(1),
      model: modelName.optional(),
      system: text(20_000).optional(),
      temperature: z.number().min(0).max(2).optional(),
      maxTokens: z.number().int().min(1).max(32_768).optional(),
      seed: z.number().int().optional(),
      timeoutMs: z.number().int().min(100).max(600_000).optional(),
    }),
    outputs: ['completion', 'model', 'tokens'],
    typicalSeconds: 5,
    async run(data, context) {
      const model = data.model ?? context.defaultModel;
      const options = {
        ...(data.temperature !== undefined && { temperature: data.temperature }),
        ...(data.seed !== undefined && { seed: data.seed }),
        ...(data.maxTokens && { num_predict: data.maxTokens }),
      };
      const answer = await context.localModels.generate(
        { model, prompt: data.prompt, system: data.system, options },
        { signal: context.signal, timeoutMs: data.timeoutMs ?? 120_000 },
      );
      const tokens = (answer.prompt_eval_count ?? 0) + (answer.eval_count ?? 0);
      return { output: { completion: answer.response, model: answer.model, tokens }, modelUsed: answer.model, tokensUsed: tokens };
    },
  }),
  defineComponent({
    type: 'Embeddings',
    group: 'AI',
    description: 'Embedding vectors from the local-models service (/api/embed)',
    input: z.object({ text: z.union([text().min(1), z.array(text().min(1)).min(1).max(256)]), model: modelName.optional() }),
    outputs: ['vector', 'vectors', 'dimensions'],
    typicalSeconds: 1,
    async run(data, context) {
      const model = data.model ?? context.embeddingModel;
      const answer = await context.localModels.embed(model, data.text, { signal: context.signal });
      if (!answer.embeddings[0]) throw new NodeError('MODEL_ERROR', 'The model returned no embedding', false);
      return {
        output: { vector: answer.embeddings[0], vectors: answer.embeddings, dimensions: answer.embeddings[0].length },
        modelUsed: answer.model,
        tokensUsed: answer.prompt_eval_count,
      };
    },
  }),
  defineComponent({
    type: 'VectorSearch',
    group: 'AI',
    description: 'Nearest documents of a collection by cosine similarity (exact scan in Postgres)',
    input: z.object({
      query: z.union([text(20_000).min(1), z.array(z.number()).min(1).max(4096)]),
      collection: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/),
      topK: z.number().int().min(1).max(100).default(5),
      minScore: z.number().min(-1).max(1).default(-1),
      model: modelName.optional(),
    }),
    outputs: ['results', 'context'],
    typicalSeconds: 1,
    async run(data, context) {
      let vector = data.query;
      let modelUsed: string | undefined;
      if (typeof vector === 'string') {
        const answer = await context.localModels.embed(data.model ?? context.embeddingModel, vector, { signal: context.signal });
        vector = answer.embeddings[0] ?? [];
        modelUsed = answer.model;
      }
      const results = await context.vectors.search(data.collection, vector, data.topK, data.minScore);
      return { output: { results, context: results.map((result) => result.text).join('\n\n') }, modelUsed };
    },
  }),
  defineComponent({
    type: 'ImageGen',
    group: 'AI',
    description: 'An image from an OpenAI-compatible images endpoint (IMAGE_API_URL)',
    input: z.object({ prompt: text(4000).min(1), size: z.enum(['256x256', '512x512', '1024x1024']).default('1024x1024'), model: modelName.optional() }),
    outputs: ['image_url'],
    typicalSeconds: 15,
    async run(data, context) {
      if (!context.images)
        throw configError('No image endpoint is configured: set IMAGE_API_URL (an OpenAI-compatible /v1/images/generations) and IMAGE_API_KEY');
      const model = data.model ?? context.images.model;
      const answer = (await context.images.client.request('POST', '/v1/images/generations', {
        body: { model, prompt: data.prompt, n: 1, size: data.size },
        signal: context.signal,
        timeoutMs: 120_000,
      })) as {
        data?: Array<{ url?: string; b64_json?: string }>;
      };
      const image = answer?.data?.[0];
      const url = image?.url ?? (image?.b64_json ? `data:image/png;base64,${image.b64_json}` : undefined);
      if (!url) throw new NodeError('MODEL_ERROR', 'The image endpoint answered without an image', true);
      return { output: { image_url: url }, modelUsed: model };
    },
  }),
  defineComponent({
    type: 'EntityCreate',
    group: 'CMS',
    description: 'Creates a CMS node over JSON:API',
    input: z.object({
      bundle: cmsBundle,
      fields: z.record(z.string(), z.unknown()),
      token: cmsToken,
    }),
    outputs: ['nid', 'uuid', 'url'],
    typicalSeconds: 1,
    async run(data, context) {
      const created = await requireCms(context).createNode(data.bundle, data.fields, { bearer: data.token, signal: context.signal });
      const nid = String(created.attributes.drupal_internal__nid ?? created.id);
      const self = created.links?.self;
      const url =
        typeof self === 'string' ? self : (self?.href ?? `${requireCms(context).http.baseUrl}${JsonApiCmsClient.nodeCollection(data.bundle)}/${created.id}`);
      return { output: { nid, uuid: created.id, url }, entityCreated: nid };
    },
  }),
  defineComponent({
    type: 'EntityLoad',
    group: 'CMS',
    description: 'Loads a CMS node by number or uuid',
    input: z.object({
      nid: z.union([z.string().min(1).max(128), z.number().int().min(1)]),
      bundle: cmsBundle,
      token: cmsToken,
    }),
    outputs: ['entity'],
    typicalSeconds: 1,
    async run(data, context) {
      const node = await requireCms(context).loadNode(data.bundle, data.nid, { bearer: data.token, signal: context.signal });
      return { output: { entity: entityView(node) } };
    },
  }),
  defineComponent({
    type: 'EntityUpdate',
    group: 'CMS',
    description: 'Changes fields of a CMS node',
    input: z.object({
      nid: z.union([z.string().min(1).max(128), z.number().int().min(1)]),
      bundle: cmsBundle,
      fields: z.record(z.string(), z.unknown()),
      token: cmsToken,
    }),
    outputs: ['updated', 'entity'],
    typicalSeconds: 1,
    async run(data, context) {
      const node = await requireCms(context).updateNode(data.bundle, data.nid, data.fields, { bearer: data.token, signal: context.signal });
      return { output: { updated: true, entity: entityView(node) } };
    },
  }),
  defineComponent({
    type: 'UserLogin',
    group: 'CMS',
    description: "A CMS user's access token (OAuth password grant)",
    input: z.object({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024), clientId: z.string().max(128).optional() }),
    outputs: ['token'],
    typicalSeconds: 1,
    async run(data, context) {
      const token = await requireCms(context).login(data.username, data.password, data.clientId ?? context.cmsClientId, undefined, { signal: context.signal });
      return { output: { token } };
    },
  }),
  defineComponent({
    type: 'MCPToolCall',
    group: 'MCP',
    description: 'Calls a tool through the MCP registry (a connection offering it is discovered when none is named)',
    input: z.object({
      tool: z.string().min(1).max(200),
      params: z.record(z.string(), z.unknown()).default({}),
      connectionId: z.string().uuid().optional(),
      timeout: z.number().int().min(100).max(300_000).optional(),
    }),
    outputs: ['result', 'text', 'connectionId'],
    typicalSeconds: 2,
    async run(data, context) {
      const { id, answer } = await callTool(context, data.connectionId, data.tool, data.params, data.timeout);
      return { output: { result: answer.result.structuredContent ?? answer.result.content, text: mcpText(answer.result.content), connectionId: id } };
    },
  }),
  defineComponent({
    type: 'FileSystemRead',
    group: 'MCP',
    description: "Reads a file through an MCP filesystem server's tool",
    input: z.object({
      path: z.string().min(1).max(4096),
      tool: z.string().min(1).max(200).default('read_text_file'),
      connectionId: z.string().uuid().optional(),
    }),
    outputs: ['content'],
    typicalSeconds: 1,
    async run(data, context) {
      const { answer } = await callTool(context, data.connectionId, data.tool, { path: data.path });
      return { output: { content: mcpText(answer.result.content) } };
    },
  }),
  defineComponent({
    type: 'MCPServerQuery',
    group: 'MCP',
    description: 'Finds MCP connections offering a capability',
    input: z.object({ capability: z.string().min(1).max(200), maxConnections: z.number().int().min(1).max(100).default(10) }),
    outputs: ['servers', 'total'],
    typicalSeconds: 1,
    async run(data, context) {
      const found = await context.mcp.discover(
        { capabilities: [data.capability], loadBalancing: { strategy: 'least-loaded', maxConnections: data.maxConnections } },
        { signal: context.signal },
      );
      return { output: { servers: found.connections, total: found.totalMatching } };
    },
  }),
  defineComponent({
    type: 'ScmAPI',
    group: 'MCP',
    description: 'A GitLab-style source-control REST call (SCM_URL)',
    input: z.object({
      action: z.enum(Object.keys(SCM_ACTIONS) as [string, ...string[]]),
      params: z.record(z.string(), z.union([z.string().max(100_000), z.number()])).default({}),
    }),
    outputs: ['response'],
    typicalSeconds: 1,
    async run(data, context) {
      if (!context.scm) throw configError('No source-control server is configured: set SCM_URL (and SCM_TOKEN)');
      const action = SCM_ACTIONS[data.action];
      const params = Object.fromEntries(Object.entries(data.params).map(([key, value]) => [key, String(value)]));
      const missing = action.required.filter((name) => !params[name]);
      if (missing.length) throw new NodeError('INVALID_INPUT', `${data.action} needs params ${missing.join(', ')}`, false);
      const pick = (names: string[] = []) => Object.fromEntries(names.filter((name) => params[name] !== undefined).map((name) => [name, params[name]]));
      const response = await context.scm.request(action.method, action.path(params), {
        query: pick(action.query),
        body: action.body ? pick(action.body) : undefined,
        signal: context.signal,
      });
      return { output: { response } };
    },
  }),
  defineComponent({
    type: 'Condition',
    group: 'Logic',
    pure: true,
    description: 'A JSONata expression over `input`; edges with sourceHandle true/false follow its result',
    input: z.object({ condition: z.string().min(1).max(4000), input: z.unknown().optional() }),
    outputs: ['result', 'value'],
    typicalSeconds: 0,
    async run(data, context) {
      let value: unknown;
      try {
        value = await context.expressions.evaluate(data.condition, data.input ?? {});
      } catch (error) {
        if (error instanceof ExpressionBudgetError) {
          // No free evaluator in time is the engine's state, not the expression's: worth another attempt.
          if (error.limit === 'unavailable') throw new NodeError('EXPRESSION_UNAVAILABLE', error.message, true);
          throw new NodeError(BUDGET_CODES[error.limit], `The condition was stopped: ${error.message}`, false);
        }
        throw new NodeError('CONDITION_ERROR', `The condition could not be evaluated: ${(error as Error).message}`, false);
      }
      return { output: { result: Boolean(value), value: value ?? null } };
    },
  }),
  defineComponent({
    type: 'Loop',
    group: 'Logic',
    description: 'Runs its body component for each item; `{{item}}` in the body is the item',
    input: z.object({ items: z.array(z.unknown()).max(1000), body: SubTask, concurrency: z.number().int().min(1).max(20).default(1) }),
    outputs: ['results', 'count'],
    typicalSeconds: 1,
    async run(data, context) {
      const results: unknown[] = new Array(data.items.length);
      let next = 0;
      const lane = async () => {
        for (let index = next++; index < data.items.length; index = next++) {
          const item = data.items[index];
          const bodyData = substituteItem(data.body.data, item) as Record<string, unknown>;
          results[index] = (await context.runComponent(data.body.type, bodyData)).output;
        }
      };
      await Promise.all(Array.from({ length: Math.min(data.concurrency, data.items.length) }, lane));
      return { output: { results, count: results.length } };
    },
  }),
  defineComponent({
    type: 'Parallel',
    group: 'Logic',
    description: 'Runs several components at once',
    input: z.object({ tasks: z.array(SubTask).min(1).max(50) }),
    outputs: ['results'],
    typicalSeconds: 1,
    async run(data, context) {
      const results = await Promise.all(data.tasks.map(async (task) => (await context.runComponent(task.type, task.data)).output));
      return { output: { results } };
    },
  }),
  defineComponent({
    type: 'Merge',
    group: 'Logic',
    pure: true,
    description: 'Merges its inputs: objects into one object, arrays concatenated, otherwise a list',
    input: z.object({ inputs: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]), mode: z.enum(['auto', 'object', 'array']).default('auto') }),
    outputs: ['merged'],
    typicalSeconds: 0,
    async run(data) {
      const values = Array.isArray(data.inputs) ? data.inputs : Object.values(data.inputs);
      const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
      let merged: unknown;
      if (!Array.isArray(data.inputs) && data.mode === 'auto') merged = data.inputs;
      else if (data.mode === 'object' || (data.mode === 'auto' && values.every(isObject))) merged = Object.assign({}, ...values.filter(isObject));
      else if (data.mode === 'auto' && values.every(Array.isArray)) merged = (values as unknown[][]).flat();
      else merged = values;
      return { output: { merged } };
    },
  }),
];

/** Replaces `{{item}}` / `{{item.path}}` in a Loop body with the current item. */
export function substituteItem(value: unknown, item: unknown): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*item((?:\.[A-Za-z0-9_-]+)*)\s*\}\}$/.exec(value);
    if (whole) return pluck(item, whole[1]);
    return value.replace(/\{\{\s*item((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g, (_m, path: string) => {
      const found = pluck(item, path);
      return typeof found === 'string' ? found : JSON.stringify(found ?? null);
    });
  }
  if (Array.isArray(value)) return value.map((entry) => substituteItem(entry, item));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, substituteItem(entry, item)]));
  return value;
}

function pluck(value: unknown, path: string): unknown {
  return path
    .split('.')
    .filter(Boolean)
    .reduce<unknown>((current, key) => (current && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined), value);
}

export const COMPONENTS: ReadonlyMap<string, ComponentDefinition> = new Map(components.map((component) => [component.type, component]));

export function componentOf(type: string): ComponentDefinition | undefined {
  return COMPONENTS.get(type as ComponentType);
}
