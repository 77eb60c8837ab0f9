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

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

function parameters(schema: z.ZodType | undefined, location: 'query' | 'path' | 'header') {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
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

function operation(spec: OperationSpec) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const contentTypes = response.contentTypes ?? ['application/json'];
    responses[status] = {
      description: response.description,
      ...(response.schema && {
        content: Object.fromEntries(contentTypes.map((type) => [type, { schema: jsonSchema(response.schema!, 'output') }])),
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
    operationId: `${spec.method}${spec.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    ...(spec.access !== 'public' && { security: [{ bearerAuth: [] }] }),
    parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query'), ...parameters(spec.headers, 'header')],
    ...(spec.body && { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input') } } } }),
    responses,
  };
}

/** OpenAPI 3.1 from the route declarations; Express `:param` becomes `{param}`. */
export function buildOpenApiDocument(info: OpenApiInfo, mounted: readonly MountedOperations[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { basePath, operations } of mounted) {
    for (const spec of operations) {
      const openApiPath = `${basePath}${spec.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';
      const method = spec.upgrade ? 'get' : spec.method;
      (paths[openApiPath] ??= {})[method] = operation(spec);
    }
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      schemas: { Error: jsonSchema(ErrorBody, 'output') },
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
