import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { OutboundError } from '@platform/http';

const MAX_REASON = 200;

/**
 * Why a call to an MCP server failed, as callers read it (a check's `lastError`, a tool call's
 * error): the HTTP status and a short reason, never the body the server answered with. The URL is
 * a user's, so what answers there (an internal service, say) must not be echoed back.
 */
export function describeMcpFailure(error: unknown): string {
  if (error instanceof StreamableHTTPError) {
    if (error.code === undefined || error.code <= 0) return 'the server answered with an unexpected content type';
    return `the server answered HTTP ${error.code}`;
  }
  // The outbound guard's refusals and failures name the host and the reason, never a body.
  if (error instanceof OutboundError) return error.message;
  if (error instanceof SyntaxError) return 'the server did not answer with JSON-RPC';
  // A JSON-RPC error is the MCP server's own answer (its code and message), not a foreign body.
  if (error instanceof McpError) return error.message.slice(0, MAX_REASON);
  if (error instanceof Error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (error.message === 'fetch failed') return `the server could not be reached${typeof code === 'string' ? ` (${code})` : ''}`;
    return error.message.slice(0, MAX_REASON);
  }
  return String(error).slice(0, MAX_REASON);
}
