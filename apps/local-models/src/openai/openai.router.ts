import { localModels } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { Logger } from '@platform/telemetry';
import type { RequestHandler } from 'express';
import { callerOf, clientSignal } from '../inference/inference.router';
import { openAiErrors, openAiRouteNotFound } from './openai.errors';
import type { OpenAiService } from './openai.service';

const INVOKE = { permission: 'models:invoke' } as const;
const ANSWER = ['application/json', 'text/event-stream'];
const ERRORS = {
  400: { description: 'Invalid request (`invalid_request_error`, `param` names the field)', schema: localModels.OpenAiErrorBody },
  404: { description: 'Unknown model (`model_not_found`)', schema: localModels.OpenAiErrorBody },
  502: { description: 'The Ollama backend failed', schema: localModels.OpenAiErrorBody },
};

/** OpenAI's API under `/v1` (mounted there), errors in OpenAI's shape. */
export function openAiRoutes(api: ApiRouter, openai: OpenAiService, before: RequestHandler[], logger: Logger): void {
  api.route({
    method: 'post',
    path: '/chat/completions',
    summary: 'Chat completion (OpenAI API)',
    description:
      'Whole, or streamed as server-sent events of `chat.completion.chunk` ending with `data: [DONE]` (`stream_options.include_usage` adds a last chunk with the usage). `tools` / `tool_choice` give `tool_calls`; `response_format` `json_object` or `json_schema` constrains the answer (a grammar for GGUF models, `format` for Ollama).',
    tags: ['OpenAI'],
    access: INVOKE,
    before,
    body: localModels.ChatCompletionRequest,
    responses: { 200: { description: 'The completion, whole or streamed', schema: localModels.ChatCompletion, contentTypes: ANSWER }, ...ERRORS },
    handler: (req, res) => openai.chat(req.valid.body, res, clientSignal(res), callerOf(req)),
  });

  api.route({
    method: 'post',
    path: '/completions',
    summary: 'Text completion (OpenAI API)',
    description: 'The prompt is completed as is (no chat template), whole or streamed.',
    tags: ['OpenAI'],
    access: INVOKE,
    before,
    body: localModels.TextCompletionRequest,
    responses: { 200: { description: 'The completion, whole or streamed', schema: localModels.TextCompletion, contentTypes: ANSWER }, ...ERRORS },
    handler: (req, res) => openai.completion(req.valid.body, res, clientSignal(res), callerOf(req)),
  });

  api.route({
    method: 'post',
    path: '/embeddings',
    summary: 'Embeddings (OpenAI API)',
    description: '`encoding_format: base64` gives little-endian float32 bytes, as OpenAI does.',
    tags: ['OpenAI'],
    access: INVOKE,
    before,
    body: localModels.EmbeddingsRequest,
    responses: { 200: { description: 'One vector per input', schema: localModels.Embeddings }, ...ERRORS },
    handler: (req, res) => openai.embeddings(req.valid.body, clientSignal(res), callerOf(req)),
  });

  api.route({
    method: 'get',
    path: '/models',
    summary: 'The models (OpenAI API)',
    tags: ['OpenAI'],
    access: { permission: 'models:read' },
    before,
    responses: { 200: { description: 'Every model of both backends', schema: localModels.ModelList } },
    handler: () => openai.models(),
  });

  api.router.use(openAiRouteNotFound);
  api.router.use(openAiErrors(logger));
}
