import type { MeshRouting } from './mesh-routing';
import { outboundRequest, type OutboundOptions, type OutboundResponse } from './outbound';
import { StepFailure, type StepContext } from './step-context';

/** The headers of every attempt's request: the step's one idempotency key, and which attempt this is. */
const stepHeaders = (context: StepContext) => ({ 'idempotency-key': context.idempotencyKey, 'x-attempt': String(context.attempt) });

/** An `http` step: the request as defined (templates rendered); a 2xx answer is success. */
export async function runHttpStep(context: StepContext, limits: Omit<OutboundOptions, 'signal'>): Promise<OutboundResponse> {
  const { spec } = context;
  const method = spec.method ?? (spec.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { ...stepHeaders(context), ...spec.headers };
  let body: string | undefined;
  if (spec.body !== undefined && method !== 'GET' && method !== 'HEAD') {
    body = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
    if (typeof spec.body !== 'string' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  const response = await outboundRequest(spec.url!, { method, headers, body }, { ...limits, signal: context.signal });
  if (response.status < 200 || response.status > 299) throw new StepFailure(`HTTP ${response.status} from ${method} ${spec.url}`, response);
  return response;
}

/**
 * An `agent` step: the task (the step's rendered `input`) posted to the agent's endpoint with the
 * run, step and attempt, and the idempotency key. With the mesh configured (MESH_URL) the endpoint
 * is the one the mesh's routing resolves for `agent`; otherwise (or for a step without `agent`)
 * the step's `url`.
 */
export async function runAgentStep(context: StepContext, limits: Omit<OutboundOptions, 'signal'>, mesh?: MeshRouting): Promise<OutboundResponse> {
  const { spec } = context;
  const routed = mesh && spec.agent ? await mesh.resolve(spec.agent, context.signal) : undefined;
  const url = routed?.endpoint ?? spec.url;
  if (!url) throw new StepFailure(`agent step "${context.stepId}" has no url and the mesh is not configured (MESH_URL)`, undefined, false);
  const task = {
    task: spec.input ?? {},
    agent: spec.agent,
    ...(routed && { agent_id: routed.agentId }),
    workflow_id: context.runId,
    step: context.stepId,
    attempt: context.attempt,
    idempotency_key: context.idempotencyKey,
  };
  const headers = { 'content-type': 'application/json', ...stepHeaders(context), ...spec.headers };
  const response = await outboundRequest(url, { method: 'POST', headers, body: JSON.stringify(task) }, { ...limits, signal: context.signal });
  if (response.status < 200 || response.status > 299)
    throw new StepFailure(`agent${routed ? ` "${routed.agentId}"` : ''} answered HTTP ${response.status}`, response);
  return response;
}
