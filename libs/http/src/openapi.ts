import { ErrorBody } from '@platform/contracts';
import express, { type Router } from 'express';
import path from 'node:path';
import { z } from 'zod';
import type { OperationSpec } from './api-router';

export interface MountedOperations {
  basePath: string;
  operations: readonly OperationSpec[];
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: SharedSchemas): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return components.hoist(rest);
}

/**
 * Zod gives each schema its named parts as `$defs`, referenced as `#/$defs/<name>`; inside an
 * OpenAPI document `#` is the document's root, so OpenAPI tools (and typed clients generated from
 * the document) cannot resolve them. They move to `components.schemas`, under a numbered name
 * when two different schemas share one (an input and an output view of the same type, say).
 */
class SharedSchemas {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly signatures = new Map<string, string>();

  hoist(schema: JsonSchema): JsonSchema {
    const { $defs, ...rest } = schema as JsonSchema & { $defs?: Record<string, JsonSchema> };
    if (!$defs) return rest;
    const names = new Map<string, string>();
    for (const [name, definition] of Object.entries($defs)) names.set(name, this.nameFor(name, JSON.stringify(definition)));
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      return Object.fromEntries(
        Object.entries(node).map(([key, value]) => {
          const local = key === '$ref' && typeof value === 'string' ? /^#\/\$defs\/(.+)$/.exec(value)?.[1] : undefined;
          return [key, local !== undefined ? `#/components/schemas/${names.get(local) ?? local}` : rewrite(value)];
        }),
      );
    };
    for (const [name, definition] of Object.entries($defs)) this.schemas[names.get(name)!] ??= rewrite(definition) as JsonSchema;
    return rewrite(rest) as JsonSchema;
  }

  private nameFor(name: string, signature: string): string {
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? name : `${name}${n}`;
      const taken = this.signatures.get(candidate);
      if (taken === undefined) this.signatures.set(candidate, signature);
      if (taken === undefined || taken === signature) return candidate;
    }
  }
}

function parameters(schema: z.ZodType | undefined, location: 'query' | 'path' | 'header', components: SharedSchemas) {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input', components);
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(typeof property.description === 'string' && { description: property.description }),
    schema: property,
  }));
}

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid bearer token',
  403: 'The caller lacks a required permission',
  404: 'Not found',
  429: 'Rate limit exceeded',
  500: 'Internal error',
};

function operation(spec: OperationSpec, operationId: string, components: SharedSchemas) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const contentTypes = response.contentTypes ?? ['application/json'];
    responses[status] = {
      description: response.description,
      ...(response.schema && {
        content: Object.fromEntries(contentTypes.map((type) => [type, { schema: jsonSchema(response.schema!, 'output', components) }])),
      }),
    };
  }
  const errorStatuses = [400, 500, ...(spec.access === 'public' ? [] : [401]), ...(typeof spec.access === 'object' ? [403] : [])];
  for (const status of errorStatuses) {
    responses[status] ??= { description: STANDARD_ERRORS[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    summary: spec.summary,
    ...(spec.description && { description: spec.description }),
    ...(spec.tags && { tags: spec.tags }),
    ...(spec.upgrade && { 'x-websocket': true }),
    operationId,
    ...(spec.access !== 'public' && { security: [{ bearerAuth: [] }] }),
    parameters: [
      ...parameters(spec.params, 'path', components),
      ...parameters(spec.query, 'query', components),
      ...parameters(spec.headers, 'header', components),
    ],
    ...(spec.body && { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input', components) } } } }),
    responses,
  };
}

const camelId = (method: string, path: string) => `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;

/** OpenAPI 3.1 from the route declarations; Express `:param` becomes `{param}`. */
export function buildOpenApiDocument(info: OpenApiInfo, mounted: readonly MountedOperations[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  const components = new SharedSchemas();
  const operationIds = new Set<string>();
  for (const { basePath, operations } of mounted) {
    for (const spec of operations) {
      const openApiPath = `${basePath}${spec.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';
      const method = spec.upgrade ? 'get' : spec.method;
      // Named after the route; a route mounted under two base paths is named after its full path (or numbered) the second time.
      const named = [camelId(spec.method, spec.path), camelId(spec.method, openApiPath)];
      let operationId = named.find((id) => !operationIds.has(id));
      for (let n = 2; !operationId; n++) if (!operationIds.has(`${named[0]}${n}`)) operationId = `${named[0]}${n}`;
      operationIds.add(operationId);
      (paths[openApiPath] ??= {})[method] = operation(spec, operationId, components);
    }
  }
  const error = jsonSchema(ErrorBody, 'output', components);
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      // ErrorBody may be a named schema itself, hoisted under its own name: then `error` only points at it.
      schemas: { Error: error, ...components.schemas },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}

/** `/openapi.json` and a Swagger UI page at `/docs`, served from the installed package (no CDN). */
export function openApiRouter(document: unknown): Router {
  const router = express.Router();
  const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(`<!doctype html>
<html><head><meta charset="utf-8"><title>API docs</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('js').send(`window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });`);
  });
  router.use('/docs/assets', express.static(assets, { index: false }));
  return router;
}
