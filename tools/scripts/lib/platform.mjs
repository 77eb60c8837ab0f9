// Boots the whole platform: auth first, then the service API keys every caller needs, issued
// through auth's admin API, then the nine other services with every URL and key they read.
// `npm run up` (tools/scripts/up.mjs) runs it on the ports of each project.json; the platform test
// (tools/e2e) runs it through `up.mjs --ports=free`, on free ports. Plain Node ESM, no dependency.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describeExit, startService, stopAll } from './processes.mjs';
import { localSecret, waitReady } from './workspace.mjs';

/**
 * The services that call others with a key of their own (DESIGN.md, "Services calling services"):
 * the variable each reads and the permissions its calls need.
 */
export const SERVICE_KEYS = {
  // Mesh registrations, tracing projects (and their removal), discovery, studio tasks.
  gateway: {
    variable: 'GATEWAY_API_KEY',
    permissions: ['mesh:read', 'mesh:write', 'traces:read', 'traces:write', 'traces:admin', 'registry:read', 'agents:read', 'mcp:read', 'tokens:exchange'],
  },
  // Reads the registry and mirrors executions from workers: the runs it starts are its users' (a
  // delegated token starts them), so its scheduled sync reads them with workers:admin.
  master: { variable: 'MASTER_API_KEY', permissions: ['registry:read', 'workers:read', 'workers:admin', 'workflows:read', 'tokens:exchange'] },
  // Runs models on local-models and tools through the mcp-registry.
  'workflow-engine': { variable: 'WORKFLOW_ENGINE_API_KEY', permissions: ['models:read', 'models:invoke', 'mcp:read', 'mcp:write', 'tokens:exchange'] },
  // Resolves agent steps through the mesh's routing.
  workers: { variable: 'WORKERS_API_KEY', permissions: ['mesh:read'] },
  // Asks the gateway's model route for LLM-as-a-judge grades (unless TRACING_JUDGE_API_KEY is given).
  tracing: { variable: 'TRACING_API_KEY', permissions: ['models:invoke'] },
};

/** `<SERVICE>_URL`: where the others find each service. */
const URL_VARIABLES = {
  auth: 'AUTH_URL',
  registry: 'REGISTRY_URL',
  mesh: 'MESH_URL',
  master: 'MASTER_URL',
  workers: 'WORKERS_URL',
  'workflow-engine': 'WORKFLOW_ENGINE_URL',
  'local-models': 'LOCAL_MODELS_URL',
  'mcp-registry': 'MCP_REGISTRY_URL',
  tracing: 'TRACING_URL',
};

/** Whether the port can be bound on loopback now. */
function canListen(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on now, below the kernel's ephemeral range: a port that the kernel
 * hands to some other program's `listen(0)` or outgoing connection in the minute a service takes
 * to start would be taken from under it (and another program's health check answered instead).
 */
export async function freePort(taken = new Set()) {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    /* not Linux: the usual default */
  }
  const from = Math.min(20_000, low - 1000);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (!taken.has(port) && (await canListen(port))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${from} and ${low}`);
}

async function authCall(authUrl, method, path, { token, body } = {}) {
  const response = await fetch(`${authUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`auth answered ${method} ${path} with ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** The bootstrap admin's access token. */
export async function adminToken(authUrl, admin) {
  const answer = await authCall(authUrl, 'POST', '/api/v1/auth/login', {
    body: { grant_type: 'password', username: admin.username, password: admin.password, client_id: 'platform-up' },
  });
  return answer.access_token;
}

/**
 * The platform of `apps`: `boot()` starts each as its own process, auth first, and resolves once
 * each is ready or has failed (`results`); `stop()`, at any time (during the boot too), stops them
 * all and revokes the service keys this boot issued. `services` fills as they start.
 *
 * @param {object} options
 * @param {Array} options.apps  from discoverApps()
 * @param {'fixed' | 'free'} [options.ports]  the ports of project.json, or free ones
 * @param {Record<string, string | undefined>} options.env  what every service starts with
 * @param {{username: string, password: string}} options.admin  the bootstrap admin
 * @param {{key: string, digest: string}} options.tracingKey  the span-export key and its digest
 * @param {number} [options.readyTimeoutMs]
 * @param {(message: string) => void} [options.log]
 */
export function createPlatform({ apps, ports = 'fixed', env, admin, tracingKey, readyTimeoutMs = 90_000, log = () => undefined }) {
  const services = [];
  const issued = [];
  const portOf = new Map();
  let authUrl;
  let stopping = false;

  const platform = {
    services,
    /** Each app's base URL, by name. */
    urls: {},
    grpcPort: 0,
    admin,
    results: [],
    keyError: undefined,
    boot,
    async stop() {
      stopping = true;
      if (issued.length && services.some((service) => service.app.name === 'auth' && !service.exit)) {
        try {
          const token = await adminToken(authUrl, admin);
          await Promise.all(issued.map((key) => authCall(authUrl, 'DELETE', `/api/v1/auth/admin/api-keys/${key.id}`, { token }).catch(() => undefined)));
        } catch {
          /* auth is going away anyway; the keys stay listed for an operator to revoke */
        }
      }
      await stopAll(services);
    },
  };

  async function boot() {
    const taken = new Set();
    for (const app of apps) portOf.set(app.name, ports === 'free' ? await freePort(taken) : app.port);
    platform.grpcPort = ports === 'free' ? await freePort(taken) : Number(env.GRPC_PORT || 3015);
    platform.tracingGrpcPort = ports === 'free' ? await freePort(taken) : Number(env.TRACING_GRPC_PORT || 4317);
    for (const app of apps) platform.urls[app.name] = `http://127.0.0.1:${portOf.get(app.name)}`;
    const urls = platform.urls;

    const common = { ...env };
    for (const app of apps) if (URL_VARIABLES[app.name]) common[URL_VARIABLES[app.name]] = urls[app.name];
    authUrl = common.AUTH_URL;
    // Every service exports its spans to the tracing service with this key.
    if (urls.tracing) common.OTEL_EXPORTER_OTLP_ENDPOINT = urls.tracing;
    common.TRACING_INGEST_KEY = tracingKey.key;
    const own = {
      auth: { AUTH_ADMIN_USERNAME: admin.username, AUTH_ADMIN_PASSWORD: admin.password, AUTH_PUBLIC_URL: authUrl },
      tracing: {
        TRACING_INGEST_KEYS: [env.TRACING_INGEST_KEYS, tracingKey.digest].filter(Boolean).join(','),
        TRACING_GRPC_PORT: String(platform.tracingGrpcPort),
      },
      mesh: { GRPC_PORT: String(platform.grpcPort) },
      gateway: {
        GATEWAY_PUBLIC_URL: urls.gateway,
        // Every replica must share it; a local boot keeps one in tmp/.
        GATEWAY_REPLY_SECRET:
          env.GATEWAY_REPLY_SECRET || (ports === 'free' ? randomBytes(32).toString('hex') : localSecret('local-gateway-reply-secret', 32).secret),
      },
      registry: { REGISTRY_PUBLIC_URL: urls.registry },
      'workflow-engine': { WORKFLOW_ENGINE_PUBLIC_URL: urls['workflow-engine'] },
    };

    const start = (app, extra = {}) => {
      const service = startService(app, { ...common, ...own[app.name], ...extra, PORT: String(portOf.get(app.name)) }, { index: apps.indexOf(app) });
      service.url = urls[app.name];
      services.push(service);
      return service;
    };
    const ready = async (service) => {
      try {
        await waitReady(portOf.get(service.app.name), { timeoutMs: readyTimeoutMs, gone: () => (service.exit ? describeExit(service.exit) : null) });
        return { service, ok: true };
      } catch (error) {
        return { service, ok: false, reason: error.message };
      }
    };

    const authApp = apps.find((app) => app.name === 'auth');
    const keys = {};
    if (authApp) {
      const auth = await ready(start(authApp));
      platform.results.push(auth);
      if (auth.ok && !stopping) {
        try {
          const token = await adminToken(authUrl, admin);
          for (const [service, { variable, permissions }] of Object.entries(SERVICE_KEYS)) {
            if (!apps.some((app) => app.name === service)) continue;
            if (env[variable]) continue; // given by the operator
            const key = await authCall(authUrl, 'POST', '/api/v1/auth/admin/api-keys', { token, body: { service, permissions } });
            issued.push(key);
            keys[service] = { [variable]: key.key };
            log(`issued ${service}'s API key ${key.prefix}… (${permissions.join(', ')})`);
          }
        } catch (error) {
          platform.keyError = `the service API keys could not be issued (${error.message}): services call each other with their callers' tokens only`;
          log(platform.keyError);
        }
      }
    }
    if (stopping) return platform;
    const others = apps.filter((app) => app !== authApp).map((app) => start(app, keys[app.name]));
    platform.results.push(...(await Promise.all(others.map(ready))));
    platform.results.sort((a, b) => apps.indexOf(a.service.app) - apps.indexOf(b.service.app));
    return platform;
  }

  return platform;
}
