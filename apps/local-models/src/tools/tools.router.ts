import { localModels } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { callerOf, clientSignal } from '../inference/inference.router';
import type { ToolsService } from './tools.service';

export function toolRoutes(api: ApiRouter, tools: ToolsService, before: RequestHandler[]): void {
  api.route({
    method: 'get',
    path: '/tools',
    summary: 'The tools and the models they run on',
    tags: ['Tools'],
    access: { permission: 'models:read' },
    before,
    responses: { 200: { description: 'Tools, and every model with its backend and price per 1,000 tokens', schema: localModels.ToolsResponse } },
    handler: () => tools.tools(),
  });

  api.route({
    method: 'post',
    path: '/invoke',
    summary: 'Run one tool on one model',
    description:
      '`result.output` is the text (generate, chat) or the vector (embed); `cost` comes from LOCAL_MODELS_PRICES (0 for embedded models); `duration` is in milliseconds.',
    tags: ['Tools'],
    access: { permission: 'models:invoke' },
    before,
    body: localModels.InvokeRequest,
    responses: {
      200: { description: 'The result, its cost and duration', schema: localModels.InvokeResponse },
      404: { description: 'Unknown model; `details.available` lists the models' },
      502: { description: 'The Ollama backend failed' },
    },
    handler: (req, res) => tools.invoke(req.valid.body, clientSignal(res), callerOf(req)),
  });
}
