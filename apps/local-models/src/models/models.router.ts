import { localModels } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { ModelCatalog } from './models.service';

const TagsBody = localModels.TagsResponse.extend({
  unavailable: z.array(z.object({ backend: z.literal('ollama'), message: z.string() })).optional(),
});

export function modelRoutes(api: ApiRouter, catalog: ModelCatalog, before: RequestHandler[]): void {
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
}
