import { localModels } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { currentRequestId } from '@platform/telemetry';
import type { Request, RequestHandler, Response } from 'express';
import type { Caller, InferenceService } from './inference.service';

/** The verified caller, for the usage record. */
export const callerOf = (req: Request): Caller => ({ subject: req.auth?.sub ?? 'unknown', requestId: currentRequestId() });

/** Aborted when the client goes away, so a generation nobody reads stops. */
export function clientSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}

const STREAM = ['application/x-ndjson', 'application/json'];
const INVOKE = { permission: 'models:invoke' } as const;

export function inferenceRoutes(api: ApiRouter, inference: InferenceService, before: RequestHandler[]): void {
  api.route({
    method: 'post',
    path: '/api/generate',
    summary: 'Generate a completion (Ollama API)',
    description:
      'Streams NDJSON lines (`done: false` chunks, then a `done: true` line with token counts and durations in nanoseconds) unless `stream` is false. An empty prompt only loads the model. Options: temperature, seed, num_predict, top_k, top_p, min_p, repeat_penalty, stop.',
    tags: ['Inference'],
    access: INVOKE,
    before,
    body: localModels.GenerateRequest,
    responses: {
      200: { description: 'The completion, streamed or whole', schema: localModels.GenerateResponse, contentTypes: STREAM },
      404: { description: 'Unknown model; `details.available` lists the models' },
      502: { description: 'The Ollama backend failed' },
    },
    handler: (req, res) => inference.generate(req.valid.body, res, clientSignal(res), callerOf(req)),
  });

  api.route({
    method: 'post',
    path: '/api/chat',
    summary: 'Answer a conversation (Ollama API)',
    description: "Streams NDJSON lines with `message` chunks unless `stream` is false. The last message must be the user's.",
    tags: ['Inference'],
    access: INVOKE,
    before,
    body: localModels.ChatRequest,
    responses: {
      200: { description: 'The answer, streamed or whole', schema: localModels.ChatResponse, contentTypes: STREAM },
      404: { description: 'Unknown model' },
      502: { description: 'The Ollama backend failed' },
    },
    handler: (req, res) => inference.chat(req.valid.body, res, clientSignal(res), callerOf(req)),
  });

  api.route({
    method: 'post',
    path: '/api/embed',
    summary: 'Embed text (Ollama API)',
    tags: ['Inference'],
    access: INVOKE,
    before,
    body: localModels.EmbedRequest,
    responses: {
      200: { description: 'One vector per input', schema: localModels.EmbedResponse },
      404: { description: 'Unknown model' },
      502: { description: 'The Ollama backend failed' },
    },
    handler: (req, res) => inference.embed(req.valid.body, clientSignal(res), callerOf(req)),
  });
}
