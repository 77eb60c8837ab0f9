import { localModels } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { ModelCatalog } from './models.service';

const TagsBody = localModels.TagsResponse.extend({
  unavailable: z.array(z.object({ backend: z.literal('ollama'), message: z.string() })).optional(),
});

const ShowRequest = z
  .looseObject({ model: z.string().min(1).max(200).optional(), name: z.string().min(1).max(200).optional() })
  .refine((body) => body.model ?? body.name, {
    message: 'model is required',
    path: ['model'],
  });

export function modelRoutes(api: ApiRouter, catalog: ModelCatalog, before: RequestHandler[], ollamaApiVersion: string): void {
  api.route({
    method: 'get',
    path: '/api/tags',
    summary: 'The installed models (Ollama API)',
    description:
      'GGUF files of LOCAL_MODELS_DIR (backend `embedded`) and the models of the Ollama server at OLLAMA_URL (backend `ollama`). When Ollama cannot be reached its models are missing and `unavailable` says why.',
    tags: ['Models'],
    access: { permission: 'models:read' },
    before,
    responses: { 200: { description: 'The models', schema: TagsBody } },
    handler: async () => {
      const { models, unavailable } = await catalog.list();
      return { models, ...(unavailable.length > 0 && { unavailable }) };
    },
  });

  api.route({
    method: 'post',
    path: '/api/show',
    summary: 'Details of one model (Ollama API)',
    description: "For a GGUF file: its details, header metadata (`model_info`) and chat template; for an Ollama model: Ollama's answer.",
    tags: ['Models'],
    access: { permission: 'models:read' },
    before,
    body: ShowRequest,
    responses: {
      200: { description: 'The model', schema: z.looseObject({ details: localModels.ModelDetails, backend: localModels.ModelBackend }) },
      404: { description: 'Unknown model' },
    },
    handler: (req) => catalog.show((req.valid.body.model ?? req.valid.body.name)!),
  });

  api.route({
    method: 'get',
    path: '/api/ps',
    summary: 'The models in memory (Ollama API)',
    tags: ['Models'],
    access: { permission: 'models:read' },
    before,
    responses: { 200: { description: 'The loaded models', schema: TagsBody } },
    handler: async () => {
      const { models, unavailable } = await catalog.running();
      return { models, ...(unavailable.length > 0 && { unavailable }) };
    },
  });

  api.route({
    method: 'get',
    path: '/api/version',
    summary: 'The Ollama API version this service speaks',
    description: 'Ollama clients check it before using newer features; LOCAL_MODELS_OLLAMA_VERSION sets it.',
    tags: ['Models'],
    access: 'authenticated',
    before,
    responses: { 200: { description: 'The version', schema: z.object({ version: z.string() }) } },
    handler: () => ({ version: ollamaApiVersion }),
  });
}
