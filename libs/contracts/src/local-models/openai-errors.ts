import type { OpenAiErrorBody } from './openai';

/** What the mapping needs of a platform error (DESIGN.md's shape, as `ApiError` carries it). */
export interface PlatformError {
  status: number;
  code: string;
  message: string;
  details?: unknown;
}

/** OpenAI's error `type` for each status, as its clients and LiteLLM use them. */
function openAiType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** `body.messages.0.role` → `messages[0].role`, as OpenAI names a parameter. */
function paramOf(path: string): string {
  return path
    .replace(/^body\./, '')
    .replace(/^(query|params)\./, '')
    .replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/**
 * A platform error in OpenAI's shape `{error: {message, type, code, param}}`: an unknown model is
 * `model_not_found` on `model`, a refused field names it in `param`, the platform's own code stays.
 */
export function openAiErrorOf(error: PlatformError): OpenAiErrorBody {
  const details = (error.details ?? {}) as { issues?: Array<{ path?: string; message?: string }>; param?: string; field?: string; model?: string };
  const issue = details.issues?.[0];
  // An issue with the body as a whole names no parameter.
  let param: string | null = details.param ?? details.field ?? (issue?.path && issue.path !== 'body' ? paramOf(issue.path) : null);
  let code = error.code;
  let message = error.message;
  if (error.status === 404 && details.model !== undefined) {
    code = 'model_not_found';
    param = 'model';
  }
  if (issue?.message) message = `${message}: ${param ? `${param} ` : ''}${issue.message}`;
  return { error: { message, type: openAiType(error.status), code, param } };
}
