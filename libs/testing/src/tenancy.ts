import type { TestIssuer } from './test-issuer';
import { uniqueName } from './environment';

/** The five callers every tenancy table tries (DESIGN.md, "Who owns what"). */
export type TenancyRole = 'owner' | 'viewer' | 'editor' | 'stranger' | 'admin';
export const TENANCY_ROLES: readonly TenancyRole[] = ['owner', 'viewer', 'editor', 'stranger', 'admin'];

export interface TenancyCaller {
  sub: string;
  /** The `Authorization` header value. */
  auth: string;
}

export type TenancyCallers = Record<TenancyRole, TenancyCaller> & { team: string };

/**
 * One caller of each kind, all holding `permissions` (so that permission checks cannot hide an
 * ownership check): the owner; a viewer and an editor of the owner's team; a stranger; and a
 * holder of the admin permission. `permissionsOf` narrows a caller's permissions when a role needs
 * fewer (a read-only viewer, say).
 */
export function tenancyCallers(
  issuer: TestIssuer,
  options: { permissions: string[]; admin: string; permissionsOf?: Partial<Record<TenancyRole, string[]>> },
): TenancyCallers {
  const team = uniqueName('team');
  const make = (role: TenancyRole, teamRole?: 'viewer' | 'editor'): TenancyCaller => {
    const sub = uniqueName(role);
    const permissions = options.permissionsOf?.[role] ?? (role === 'admin' ? [...options.permissions, options.admin] : options.permissions);
    return { sub, auth: issuer.bearer(permissions, { sub, ...(teamRole && { teams: [{ id: team, role: teamRole }] }) }) };
  };
  return {
    team,
    owner: make('owner'),
    viewer: make('viewer', 'viewer'),
    editor: make('editor', 'editor'),
    stranger: make('stranger'),
    admin: make('admin'),
  };
}

export interface TenancyRequest {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * How one route treats another's resource:
 * - `read`: owner, team viewer, team editor and admin get it; a stranger gets 404;
 * - `write` (change, run, delete): owner, editor and admin may; a viewer gets 403, a stranger 404;
 * - `list`: the resource is listed for all but the stranger;
 * - `exempt`: the route does not act on one user's resource (public, admin-only, a create), and why.
 * `allowed` lists the statuses that count as let through where a 2xx is not what a permitted caller
 * sees (a retry of a run that did not fail answers 409, say).
 */
export type TenancyCase<R> =
  | { access: 'read' | 'write'; request: (resource: R) => TenancyRequest; allowed?: number[] }
  | { access: 'list'; request: (resource: R) => TenancyRequest; lists: (body: unknown, resource: R) => boolean }
  | { exempt: string };

export interface TenancyTable<R> {
  baseUrl: string;
  callers: TenancyCallers;
  /** A fresh resource owned by `callers.owner` and shared with `callers.team`; called once per caller and route. */
  create: (callers: TenancyCallers) => Promise<R>;
}

/** Routes of a service as `METHOD /path` (OpenAPI form: `/agents/{id}`), read from its `/openapi.json`. */
export async function servedRoutes(baseUrl: string): Promise<string[]> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
  const methods = new Set(['get', 'post', 'put', 'patch', 'delete']);
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((method) => methods.has(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Served routes the table does not name: a new route fails the tenancy test until it is classified. */
export async function unclassifiedRoutes(baseUrl: string, routes: Record<string, unknown>): Promise<string[]> {
  return (await servedRoutes(baseUrl)).filter((route) => !(route in routes)).sort();
}

/** Names in the table that the service does not serve (a renamed route). */
export async function unservedRoutes(baseUrl: string, routes: Record<string, unknown>): Promise<string[]> {
  const served = new Set(await servedRoutes(baseUrl));
  return Object.keys(routes)
    .filter((route) => !served.has(route))
    .sort();
}

const permitted = (status: number, allowed?: number[]) => (allowed ? allowed.includes(status) : status >= 200 && status < 400);

/**
 * Calls `route` as each of the five callers, each on a resource of its own, and returns what broke
 * the rule (an empty list when nothing did).
 */
export async function tenancyViolations<R>(table: TenancyTable<R>, route: string, rule: TenancyCase<R>): Promise<string[]> {
  if ('exempt' in rule) return [];
  const [method, ...rest] = route.split(' ');
  const violations: string[] = [];
  for (const role of TENANCY_ROLES) {
    const resource = await table.create(table.callers);
    const request = rule.request(resource);
    const hasBody = request.body !== undefined;
    const response = await fetch(`${table.baseUrl}${request.path}`, {
      method,
      headers: { authorization: table.callers[role].auth, ...(hasBody && { 'content-type': 'application/json' }), ...request.headers },
      body: hasBody ? JSON.stringify(request.body) : undefined,
    });
    const text = await response.text();
    const seen = `${role}: ${method} ${request.path} (${rest.join(' ')}) answered ${response.status} ${text.slice(0, 300)}`;
    if (rule.access === 'list') {
      if (!response.ok) {
        violations.push(`${seen}; a list answers 200`);
        continue;
      }
      const listed = rule.lists(JSON.parse(text), resource);
      if (listed !== (role !== 'stranger')) violations.push(`${role}: ${listed ? 'sees' : 'does not see'} the resource in ${request.path}`);
      continue;
    }
    const expected = role === 'stranger' ? 404 : role === 'viewer' && rule.access === 'write' ? 403 : undefined;
    if (expected !== undefined ? response.status !== expected : !permitted(response.status, rule.allowed)) {
      violations.push(`${seen}; expected ${expected ?? 'to be let through'}`);
    }
  }
  return violations;
}
