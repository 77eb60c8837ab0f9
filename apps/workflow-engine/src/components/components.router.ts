import { workflowEngine } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { COMPONENTS } from './library';

type ComponentInfo = workflowEngine.ComponentInfo;

/** The library as editors see it: each component's node `data` schema as JSON Schema, worked out once. */
export function componentCatalog(): ComponentInfo[] {
  return [...COMPONENTS.values()].map((component) => {
    const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(component.input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
    return { type: component.type, group: component.group, description: component.description, outputs: [...component.outputs], inputSchema };
  });
}

export function componentRoutes(api: ApiRouter, before: RequestHandler[]): void {
  const body = { components: componentCatalog() };
  api.route({
    method: 'get',
    path: '/components',
    summary: 'The component library (beyond spec 3)',
    description:
      "Every node type a flow may use: its group, what it does, the outputs other nodes may reference as `{{node.output}}`, and the JSON Schema of its `data` (the same schema the flow's validation applies).",
    tags: ['workflows'],
    access: { permission: 'workflows:read' },
    before,
    responses: { 200: { description: 'The component library', schema: workflowEngine.ComponentsResponse } },
    handler: () => body,
  });
}
