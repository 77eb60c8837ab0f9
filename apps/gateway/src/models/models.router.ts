import { localModels } from '@platform/contracts';
import { ApiError, forbidden, toApiError, type ApiRouter } from '@platform/http';
import { currentRequestId, type Logger } from '@platform/telemetry';
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { ModelAccessService } from './model-access.service';
import type { ModelCaller, ModelRouteService } from './models.service';

const ADMIN = 'gateway:admin';
const ANSWER = ['application/json', 'text/event-stream'];
const ERRORS = {
  400: { description: 'Invalid request (`invalid_request_error`, `param` names the field)', schema: localModels.OpenAiErrorBody },
  401: { description: 'No or a bad token or API key', schema: localModels.OpenAiErrorBody },
  403: { description: '`model_not_allowed`: not in the caller’s allow-list; or a permission missing', schema: localModels.OpenAiErrorBody },
  429: { description: '`budget_exceeded`: the monthly token budget is spent; or `rate_limited`', schema: localModels.OpenAiErrorBody },
  502: { description: '`upstream_error`: no upstream of the model (nor of its fallbacks) answered', schema: localModels.OpenAiErrorBody },
};

function callerOf(req: Request): ModelCaller {
  return { sub: req.auth!.sub, bearer: /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '' };
}

/** Aborted when the caller goes away, so the upstream call stops too. */
function callerSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => !res.writableFinished && controller.abort(new Error('caller disconnected')));
  return controller.signal;
}

/** Errors under `/v1` in OpenAI's shape, as its clients read them; the platform's code also in `X-Error-Code`. */
function openAiErrors(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const apiError = toApiError(error);
    if (apiError.status >= 500) logger.warn({ err: error, path: req.path }, 'model route failed');
    for (const [name, value] of Object.entries(apiError.headers ?? {})) res.setHeader(name, value);
    res.setHeader('X-Error-Code', apiError.code);
    res.setHeader('X-Request-Id', currentRequestId() ?? 'unknown');
    res.status(apiError.status).json(localModels.openAiErrorOf(apiError));
  };
}

/** `/v1/chat/completions`, `/v1/embeddings`, `/v1/models` (the OpenAI API, mounted at `/v1`). */
export function modelRoutes(v1: ApiRouter, models: ModelRouteService, logger: Logger): void {
  v1.route({
    method: 'post',
    path: '/chat/completions',
    summary: 'Chat completion through the platform (OpenAI API)',
    description:
      'Routed by model name to local-models or a configured upstream, streamed through unbuffered; checked against the caller’s allow-list and monthly token budget; a failing upstream hands over to the model’s fallbacks (`X-Platform-Fallback` names the model that answered).',
    tags: ['Models'],
    access: { permission: 'models:invoke' },
    body: localModels.ChatCompletionRequest,
    responses: { 200: { description: 'The upstream’s answer, whole or streamed', schema: localModels.ChatCompletion, contentTypes: ANSWER }, ...ERRORS },
    handler: (req, res) => models.forward('chat', '/chat/completions', req.valid.body, callerOf(req), res, callerSignal(res)),
  });

  v1.route({
    method: 'post',
    path: '/embeddings',
    summary: 'Embeddings through the platform (OpenAI API)',
    tags: ['Models'],
    access: { permission: 'models:invoke' },
    body: localModels.EmbeddingsRequest,
    responses: { 200: { description: 'The upstream’s answer', schema: localModels.Embeddings }, ...ERRORS },
    handler: (req, res) => models.forward('embeddings', '/embeddings', req.valid.body, callerOf(req), res, callerSignal(res)),
  });

  v1.route({
    method: 'get',
    path: '/models',
    summary: 'The models the caller may call (OpenAI API)',
    tags: ['Models'],
    access: { permission: 'models:read' },
    responses: { 200: { description: 'Every upstream’s models, less those outside the caller’s allow-list', schema: localModels.ModelList } },
    handler: (req) => models.models(callerOf(req)),
  });

  v1.router.use((req, _res, next) => next(new ApiError(404, 'not_found_error', 'route_not_found', `No route for ${req.method} ${req.baseUrl}${req.path}`)));
  v1.router.use(openAiErrors(logger));
}

/** The admin's side: `/api/v1/model-access/{subject}`. */
export function modelAccessRoutes(api: ApiRouter, access: ModelAccessService): void {
  const params = localModels.ModelAccessSubject;
  api.route({
    method: 'put',
    path: '/model-access/:subject',
    summary: 'Set what a caller may call on the model route, and spend',
    description:
      'The subject is a token’s `sub`: a user, or `service:<name>` for an API key. Replaces the allow-list (names, or prefixes ending in `*`), the monthly token budget (null: none) and the caller’s own fallbacks. A caller with no record may call every model without a budget.',
    tags: ['Models'],
    access: { permission: ADMIN },
    params,
    body: localModels.ModelAccessRequest,
    responses: { 200: { description: 'The access and this month’s usage', schema: localModels.ModelAccess } },
    handler: (req) => access.set(req.valid.params.subject, req.valid.body, req.auth!.sub),
  });

  api.route({
    method: 'get',
    path: '/model-access/:subject',
    summary: 'A caller’s access to the model route and this month’s usage',
    description: '`gateway:admin`, or the caller asking about itself.',
    tags: ['Models'],
    access: 'authenticated',
    params,
    responses: { 200: { description: 'The access (every model, no budget, when none is set) and usage', schema: localModels.ModelAccess } },
    handler: (req) => {
      const auth = req.auth!;
      const permissions = auth.permissions ?? [];
      if (auth.sub !== req.valid.params.subject && !permissions.includes(ADMIN) && !permissions.includes('*')) {
        throw forbidden('Only gateway:admin reads the model access of others', { required: ADMIN, userPermissions: permissions });
      }
      return access.view(req.valid.params.subject);
    },
  });

  api.route({
    method: 'delete',
    path: '/model-access/:subject',
    summary: 'Remove a caller’s access record (back to every model, no budget)',
    tags: ['Models'],
    access: { permission: ADMIN },
    params,
    responses: { 204: { description: 'Removed' }, 404: { description: 'No record for that subject' } },
    handler: async (req, res) => {
      await access.remove(req.valid.params.subject);
      res.status(204).end();
    },
  });
}
