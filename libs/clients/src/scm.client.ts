import { z } from 'zod';
import { guardedTransport, ServiceClient, type ClientOptions } from './service-client';

type Call = { signal?: AbortSignal; timeoutMs?: number };
const enc = encodeURIComponent;

export const GitLabPipeline = z
  .object({
    id: z.number(),
    ref: z.string().nullable().optional(),
    status: z.string(),
    web_url: z.string().nullable().optional(),
    created_at: z.string().nullable().optional(),
  })
  .loose();
export const GitLabPackage = z
  .object({ id: z.number(), name: z.string(), version: z.string(), package_type: z.string(), created_at: z.string().nullable().optional() })
  .loose();

export interface ScmOptions extends Omit<ClientOptions, 'service' | 'transport' | 'token'> {
  /** The access token sent as `PRIVATE-TOKEN`. */
  privateToken?: string;
  allowPrivate?: boolean;
}

/**
 * A source-control server speaking GitLab's REST API v4 (`/api/v4`): pipelines and packages. The
 * server's URL is operator-supplied, so every call goes through the outbound guard.
 */
export class GitLabScmClient {
  readonly http: ServiceClient;

  constructor(options: ScmOptions) {
    this.http = new ServiceClient({
      service: 'scm',
      ...options,
      baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/api/v4`,
      headers: { ...options.headers, ...(options.privateToken && { 'PRIVATE-TOKEN': options.privateToken }) },
      transport: guardedTransport({ allowPrivate: options.allowPrivate }),
    });
  }

  /** `POST /projects/:id/pipeline`: runs a pipeline for a ref (never retried: it starts work). */
  createPipeline(project: string, ref: string, variables: Record<string, string>, call: Call = {}) {
    return this.http.request('POST', `/projects/${enc(project)}/pipeline`, {
      ...call,
      body: { ref, variables: Object.entries(variables).map(([key, value]) => ({ key, value })) },
      schema: GitLabPipeline,
    });
  }

  listPipelines(project: string, query: { page: number; per_page: number; status?: string }, call: Call = {}) {
    return this.http.request('GET', `/projects/${enc(project)}/pipelines`, { ...call, query, schema: z.array(GitLabPipeline) });
  }

  /** `GET /groups/:id/packages` or `/projects/:id/packages`. */
  listPackages(scope: { kind: 'group' | 'project'; path: string }, query: { page: number; per_page: number; package_type?: string }, call: Call = {}) {
    return this.http.request('GET', `/${scope.kind}s/${enc(scope.path)}/packages`, { ...call, query, schema: z.array(GitLabPackage) });
  }
}
