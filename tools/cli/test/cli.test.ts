import { bootPlatform, startFakeOllama, uniqueName, type BootedPlatform, type FakeOllama } from '@platform/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { PassThrough } from 'node:stream';
import { buildProgram, run } from '../src/program';
import { runCli, type CliResult } from './cli';

/**
 * The `platform` command line against the whole platform (booted once for the suite, database
 * `*_cli`, a private Redis), through the real binary with HOME and XDG_CONFIG_HOME in a temporary
 * directory: output, exit codes and the credentials file.
 */
const ROOT = path.resolve(__dirname, '../../..');
// Each test runs the binary several times (a Node process and tsx each): slow on a busy 2-core machine.
jest.setTimeout(180_000);
let booted: BootedPlatform;
let ollama: FakeOllama;
/** An HTTP server that answers nothing: a workers step calling it runs until cancelled. */
let stall: { url: string; stop(): Promise<void> };
/** An agent at an HTTP endpoint: answers each task on its `reply_to` URL with the input echoed. */
let echoAgent: { url: string; stop(): Promise<void> };
let home: string;
let env: Record<string, string>;
const credentialsPath = () => path.join(home, 'config', 'platform', 'credentials.json');

const cli = (args: string[], stdin = '', extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra }, stdin);
const json = <T = Record<string, any>>(result: CliResult): T => JSON.parse(result.stdout) as T; // eslint-disable-line @typescript-eslint/no-explicit-any
/** The result in a failed assertion's message. */
const shown = (result: CliResult) => ({ code: result.code, stdout: result.stdout.slice(0, 2000), stderr: result.stderr.slice(0, 2000) });

/** Streams for an in-process run, and what was written to stdout. */
function quietIo() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {}, written: () => text };
}

async function stallingServer() {
  const sockets = new Set<Socket>();
  const server = http.createServer(() => undefined);
  server.on('connection', (socket) => (sockets.add(socket), socket.once('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The task wherever the delivery envelope put it: the object holding `reply_to`. */
function findTask(value: unknown): { reply_to: string; input: unknown } | undefined {
  if (!value || typeof value !== 'object') return undefined;
  if (typeof (value as { reply_to?: unknown }).reply_to === 'string') return value as { reply_to: string; input: unknown };
  for (const child of Object.values(value)) {
    const found = findTask(typeof child === 'string' && child.startsWith('{') ? JSON.parse(child) : child);
    if (found) return found;
  }
  return undefined;
}

async function startEchoAgent() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(202, { 'content-type': 'application/json' }).end('{}');
      const task = findTask(JSON.parse(body || '{}'));
      if (task) {
        void fetch(task.reply_to, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ output: { echoed: task.input } }),
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function file(name: string, content: unknown): string {
  const target = path.join(home, name);
  writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
}

beforeAll(async () => {
  ollama = await startFakeOllama();
  stall = await stallingServer();
  echoAgent = await startEchoAgent();
  booted = await bootPlatform({
    databaseSuffix: 'cli',
    env: {
      OLLAMA_URL: ollama.url,
      OLLAMA_TAGS_TTL_MS: '1',
      MCP_STDIO_ALLOWED_COMMANDS: 'mcp-server-everything',
      MCP_STDIO_PATH: path.join(ROOT, 'node_modules/.bin'),
      WORKERS_ALLOW_PRIVATE_URLS: 'true',
      OUTBOUND_ALLOW_PRIVATE: 'true',
    },
  });
  home = mkdtempSync(path.join(os.tmpdir(), 'platform-cli-'));
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), PLATFORM_URL: booted.urls.gateway };
}, 420_000);

afterAll(async () => {
  await booted?.stop();
  await ollama?.stop();
  await stall?.stop();
  await echoAgent?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
}, 90_000);

describe('signing in', () => {
  it('says how to sign in, with exit 3, before login', async () => {
    const result = await cli(['whoami']);
    expect(shown(result)).toMatchObject({ code: 3, stderr: expect.stringContaining('platform login') });
  });

  it('a wrong password is exit 3 and keeps nothing', async () => {
    const result = await cli(['login', '--username', booted.admin.username], 'wrong-password\n');
    expect(shown(result)).toMatchObject({ code: 3, stderr: expect.stringContaining('401') });
    expect(() => statSync(credentialsPath())).toThrow();
  });

  it('logs in with the password from stdin; the credentials file is mode 0600 and holds no password', async () => {
    const result = await cli(['login', '--username', booted.admin.username], `${booted.admin.password}\n`);
    expect(shown(result)).toMatchObject({ code: 0, stdout: expect.stringContaining(`Signed in to ${booted.urls.gateway} as ${booted.admin.username}`) });
    expect(statSync(credentialsPath()).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(credentialsPath())).mode & 0o777).toBe(0o700);
    const kept = readFileSync(credentialsPath(), 'utf8');
    expect(kept).not.toContain(booted.admin.password);
    expect(JSON.parse(kept)[booted.urls.gateway]).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
  });

  it('whoami answers from auth, as a table, JSON or YAML', async () => {
    const table = await cli(['whoami']);
    expect(shown(table)).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`username\\s+${booted.admin.username}`)) });
    const asJson = await cli(['whoami', '--output', 'json']);
    expect(json(asJson)).toMatchObject({ username: booted.admin.username, permissions: expect.arrayContaining(['*']) });
    const asYaml = await cli(['-o', 'yaml', 'whoami']);
    expect(asYaml.stdout).toContain(`username: ${booted.admin.username}`);
  });

  it('renews an expired token with the refresh token and keeps the new one (still 0600)', async () => {
    const document = JSON.parse(readFileSync(credentialsPath(), 'utf8'));
    const before = document[booted.urls.gateway];
    document[booted.urls.gateway] = { ...before, expiresAt: Date.now() - 1000 };
    writeFileSync(credentialsPath(), JSON.stringify(document), { mode: 0o600 });
    const result = await cli(['whoami']);
    expect(shown(result)).toMatchObject({ code: 0 });
    const after = JSON.parse(readFileSync(credentialsPath(), 'utf8'))[booted.urls.gateway];
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(statSync(credentialsPath()).mode & 0o777).toBe(0o600);
  });

  it('an unreachable platform is exit 5', async () => {
    const result = await cli(['login', '--api-key', 'pk_nothing'], '', { PLATFORM_URL: 'http://127.0.0.1:9' });
    expect(shown(result)).toMatchObject({ code: 5, stderr: expect.stringContaining('could not be reached') });
  });
});

describe('agents', () => {
  const name = uniqueName('summariser');
  // A namespace of this run's own: the database outlives it, and lists page.
  const namespace = uniqueName('cli');
  let agentId: string;

  it('checks a manifest locally: the errors at their paths, exit 2, nothing sent', async () => {
    const manifest = file('bad.yaml', `apiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: Not_Valid\n  version: one\n`);
    const result = await cli(['agents', 'publish', manifest]);
    expect(shown(result)).toMatchObject({ code: 2 });
    expect(result.stderr).toContain('is not a valid manifest');
    expect(result.stderr).toContain('$.metadata.name');
    expect(result.stderr).toContain('$.metadata.version');
    expect((await cli(['agents', 'publish', path.join(home, 'missing.json')])).code).toBe(2);
  });

  it('publishes, lists, shows and lists the versions of an agent', async () => {
    const manifest = file('agent.json', {
      apiVersion: 'std/v0.4.7',
      kind: 'Agent',
      metadata: { name, namespace, version: '1.0.0', description: 'Summarises documents' },
      security: {
        tier: 'tier_2_write_limited',
        capabilities: { required: ['network-outbound'], optional: [] },
        sandboxing: {
          required: true,
          type: 'container',
          resource_limits: { max_memory_mb: 512, max_cpu_cores: 0.5, max_execution_seconds: 120, max_disk_mb: 1024 },
        },
      },
    });
    const published = await cli(['agents', 'publish', manifest, '-o', 'json']);
    expect(shown(published)).toMatchObject({ code: 0 });
    expect(json(published)).toMatchObject({ namespace, name, version: '1.0.0', status: 'active' });
    agentId = json(published).id;

    const listed = await cli(['agents', 'list', '--namespace', namespace]);
    expect(shown(listed)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ID\s+NAMESPACE\s+NAME\s+VERSION\s+STATUS/) });
    expect(listed.stdout).toContain(agentId);
    const shownAgent = await cli(['agents', 'show', agentId, '-o', 'json']);
    expect(json(shownAgent)).toMatchObject({ id: agentId, refs: { masterId: expect.any(String) } });
    const versions = await cli(['agents', 'versions', agentId]);
    expect(shown(versions)).toMatchObject({ code: 0, stdout: expect.stringMatching(/1\.0\.0\s+\S+\s+yes/) });
  });

  it('deprecates, then revokes the agent (its state in master)', async () => {
    const deprecated = await cli(['agents', 'deprecate', agentId, '-o', 'json']);
    expect(shown(deprecated)).toMatchObject({ code: 0 });
    expect(json(deprecated)).toMatchObject({ id: agentId, status: 'deprecated' });
    const revoked = await cli(['agents', 'revoke', agentId, '-o', 'json']);
    expect(json(revoked)).toMatchObject({ status: 'revoked' });
  });

  it('executes an agent: the task goes through the mesh to its endpoint, its reply comes back', async () => {
    const manifest = file('echo-agent.json', {
      apiVersion: 'std/v0.4.7',
      kind: 'Agent',
      metadata: { name: uniqueName('echo'), namespace, version: '1.0.0', description: 'Echoes its task' },
      security: { tier: 'tier_1_read', capabilities: { required: [], optional: [] } },
    });
    const published = await cli(['agents', 'publish', manifest, '--endpoint', `${echoAgent.url}/tasks`, '-o', 'json']);
    expect(shown(published)).toMatchObject({ code: 0 });
    const result = await cli(['agents', 'execute', json(published).id, '--input', file('task.json', { text: 'summarise this' }), '-o', 'json']);
    expect(shown(result)).toMatchObject({ code: 0 });
    expect(json(result)).toMatchObject({ status: 'completed', output: { echoed: { text: 'summarise this' } } });
  });

  it('execute: a bad input file is exit 2, an unknown agent exit 4', async () => {
    expect((await cli(['agents', 'execute', agentId, '--input', file('bad-input.json', '{nope')])).code).toBe(2);
    const unknown = await cli(['agents', 'execute', randomUUID(), '--input', file('input.json', { task: 'summarise' })]);
    expect(shown(unknown)).toMatchObject({ code: 4, stderr: expect.stringContaining('404') });
    expect((await cli(['agents', 'show', randomUUID()])).code).toBe(4);
  });
});

describe('workflows and runs', () => {
  let workflowId: string;
  const category = uniqueName('cli');

  it('checks a workflow file locally (exit 2 with the paths), then creates it', async () => {
    const invalid = await cli(['workflows', 'create', file('bad-flow.json', { name: 'x', flow: { nodes: [] } })]);
    expect(shown(invalid)).toMatchObject({ code: 2, stderr: expect.stringContaining('$.category') });
    expect(invalid.stderr).toContain('$.flow.nodes');
    const node = (id: string, type: string, data: Record<string, unknown>) => ({ id, type, position: { x: 0, y: 0 }, data });
    const created = await cli([
      'workflows',
      'create',
      file(
        'flow.yaml',
        JSON.stringify({
          name: uniqueName('cli-flow'),
          category,
          flow: {
            nodes: [
              node('check', 'Condition', { condition: 'score > 5', input: { score: 9 } }),
              node('join', 'Merge', { inputs: ['done'] }),
              node('last', 'Merge', { inputs: ['{{join.merged}}'] }),
            ],
            edges: [
              { source: 'check', target: 'join', sourceHandle: 'true' },
              { source: 'join', target: 'last' },
            ],
          },
        }),
      ),
      '-o',
      'json',
    ]);
    expect(shown(created)).toMatchObject({ code: 0 });
    workflowId = json(created).id;
    const listed = await cli(['workflows', 'list', '--category', category]);
    expect(shown(listed)).toMatchObject({ code: 0, stdout: expect.stringContaining(workflowId) });
  });

  it('runs it with --follow: every node as it runs, a progress bar and timings, to the end', async () => {
    const result = await cli(['workflows', 'run', workflowId, '--follow']);
    expect(shown(result)).toMatchObject({ code: 0 });
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Run [0-9a-f-]{36} of cli-flow-\w+: 3 nodes$/);
    for (const id of ['check', 'join', 'last']) {
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[[#-]{20}\\] \\d/3  ▶ ${id} started$`)));
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[[#-]{20}\\] \\d/3  ✔ ${id} completed  \\d+ ms$`)));
    }
    expect(lines).toContainEqual(expect.stringMatching(/^\[#{20}\] 3\/3 {2}✔ \w+ completed {2}\d+ ms$/));
    expect(lines.at(-1)).toMatch(/^workflow completed in \d+ ms$/);
  });

  it("lists the workflow's runs and shows one", async () => {
    const runs = await cli(['workflows', 'runs', workflowId, '-o', 'json']);
    expect(shown(runs)).toMatchObject({ code: 0 });
    const [run] = json<Array<{ executionId: string; status: string }>>(runs);
    expect(run.status).toBe('completed');
    const status = await cli(['workflows', 'run-status', run.executionId]);
    expect(shown(status)).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Run \S+: completed in \d+ ms\nNODE\s+STATUS\s+MS\s+ATTEMPTS\ncheck\s+completed/),
    });
  });

  it('runs (workers): lists a running run, shows it, cancels it, retries it', async () => {
    const token = JSON.parse(readFileSync(credentialsPath(), 'utf8'))[booted.urls.gateway].accessToken as string;
    const created = await fetch(`${booted.urls.workers}/api/v1/workflows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: uniqueName('cli-run'), steps: [{ id: 'wait', type: 'http', url: `${stall.url}/stall` }] }),
    });
    expect(created.status).toBe(202);
    const runId = ((await created.json()) as { workflow_id: string }).workflow_id;

    const listed = await cli(['runs', 'list']);
    expect(shown(listed)).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^${runId}\\s+cli-run-\\w+\\s+1\\s+(pending|running)$`, 'm')) });
    const dag = await cli(['runs', 'show', runId]);
    expect(shown(dag)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^STEP\s+STATE\s+ATTEMPT\nwait\s+/m) });
    const cancelled = await cli(['runs', 'cancel', runId, '-o', 'json']);
    expect(shown(cancelled)).toMatchObject({ code: 0 });
    expect(json(cancelled)).toMatchObject({ state: 'cancelled' });
    expect((await cli(['runs', 'cancel', runId])).code).toBe(1); // 409: it has ended
    const retried = await cli(['runs', 'retry', runId, '-o', 'json']);
    expect(shown(retried)).toMatchObject({ code: 0 });
    expect((await cli(['runs', 'cancel', runId])).code).toBe(0);
  });

  it('runs (workers): an unknown run is exit 4, a malformed id exit 2', async () => {
    for (const command of ['show', 'cancel', 'retry']) expect((await cli(['runs', command, randomUUID()])).code).toBe(4);
    expect((await cli(['runs', 'show', 'not-a-uuid'])).code).toBe(2);
  });
});

describe('traces', () => {
  const project = uniqueName('cli-project');
  const traceId = randomBytes(16).toString('hex');

  beforeAll(async () => {
    const token = JSON.parse(readFileSync(credentialsPath(), 'utf8'))[booted.urls.gateway].accessToken as string;
    const start = BigInt(Date.now()) * 1_000_000n;
    const root = randomBytes(8).toString('hex');
    const span = (spanId: string, name: string, offsetMs: number, durationMs: number, parentSpanId?: string) => ({
      traceId,
      spanId,
      ...(parentSpanId && { parentSpanId }),
      name,
      kind: 2,
      startTimeUnixNano: String(start + BigInt(offsetMs) * 1_000_000n),
      endTimeUnixNano: String(start + BigInt(offsetMs + durationMs) * 1_000_000n),
    });
    const response = await fetch(`${booted.urls.tracing}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: project } }] },
            scopeSpans: [{ spans: [span(root, 'GET /orders', 0, 120), span(randomBytes(8).toString('hex'), 'SELECT orders', 10, 45, root)] }],
          },
        ],
      }),
    });
    expect(response.status).toBe(200);
  });

  it('shows a trace as a tree with durations', async () => {
    const result = await cli(['traces', 'show', traceId]);
    expect(shown(result)).toMatchObject({ code: 0 });
    expect(result.stdout.split('\n')).toEqual([
      `Trace ${traceId}: 2 spans in 120.0 ms (${project})`,
      `└─ GET /orders  (${project}, SERVER)  120.0 ms`,
      `   └─ SELECT orders  (${project}, SERVER)  45.0 ms`,
      '',
    ]);
    expect((await cli(['traces', 'show', randomBytes(16).toString('hex')])).code).toBe(4);
  });

  it('tails new spans of a project', async () => {
    const result = await cli(['traces', 'tail', '--project', project, '--max', '2', '--interval', '200']);
    expect(shown(result)).toMatchObject({ code: 0 });
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^\\S+  ${project}  GET /orders  120\\.0 ms  trace ${traceId}$`));
    expect(lines[1]).toContain('SELECT orders');
  });
});

describe('MCP and models', () => {
  let connectionId: string;

  beforeAll(async () => {
    const token = JSON.parse(readFileSync(credentialsPath(), 'utf8'))[booted.urls.gateway].accessToken as string;
    const response = await fetch(`${booted.urls['mcp-registry']}/connections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: uniqueName('everything'),
        type: 'server',
        protocol: 'stdio',
        endpoint: { command: 'mcp-server-everything', args: [] },
        capabilities: ['echo'],
      }),
    });
    expect(response.status).toBe(201);
    connectionId = ((await response.json()) as { id: string }).id;
  }, 60_000);

  it('lists connections and their tools, and calls a tool', async () => {
    const listed = await cli(['mcp', 'list']);
    expect(shown(listed)).toMatchObject({ code: 0, stdout: expect.stringContaining(connectionId) });
    const tools = await cli(['mcp', 'tools', connectionId]);
    expect(shown(tools)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^echo\s/m) });
    const called = await cli(['mcp', 'call', connectionId, 'echo', '--args', '{"message":"hello from the cli"}']);
    expect(shown(called)).toMatchObject({ code: 0, stdout: 'Echo: hello from the cli\n' });
    expect((await cli(['mcp', 'call', connectionId, 'echo', '--args', '{not json'])).code).toBe(2);
    expect((await cli(['mcp', 'tools', randomUUID()])).code).toBe(4);
  }, 120_000);

  it('lists models and streams a chat answer', async () => {
    const listed = await cli(['models', 'list']);
    expect(shown(listed)).toMatchObject({ code: 0, stdout: expect.stringContaining('llama3.2:latest') });
    const chat = await cli(['models', 'chat', 'llama3.2:latest', '--message', 'hello platform']);
    expect(shown(chat)).toMatchObject({ code: 0, stdout: 'echo: hello platform\n' });
    const conversation = await cli(['models', 'chat', 'llama3.2:latest'], 'first\nsecond\n');
    expect(conversation.stdout.split('\n')).toEqual(['echo: first', 'echo: first echo: first second', '']);
    expect((await cli(['models', 'chat', 'no-such-model', '-m', 'hi'])).code).toBe(4);
  });
});

describe('help, completion, logout', () => {
  it('--help answers for every command; unknown commands and options are exit 2', async () => {
    // Every command of the tree, in-process (the same program the binary runs)…
    const paths: string[][] = [];
    const visit = (command: Command, at: string[]) => {
      paths.push(at);
      for (const sub of command.commands) visit(sub, [...at, sub.name()]);
    };
    visit(buildProgram(quietIo()), []);
    expect(paths.length).toBeGreaterThan(30);
    for (const at of paths) {
      const io = quietIo();
      expect({ at, code: await run([...at, '--help'], io) }).toEqual({ at, code: 0 });
      expect(io.written()).toContain(`Usage: platform${at.length ? ` ${at.join(' ')}` : ''}`);
    }
    // …and through the binary.
    const root = await cli(['--help']);
    expect(shown(root)).toMatchObject({ code: 0, stdout: expect.stringContaining('Exit codes:') });
    expect((await cli(['bogus'])).code).toBe(2);
    expect((await cli(['agents', 'list', '--bogus'])).code).toBe(2);
    expect((await cli(['whoami', '--output', 'xml'])).code).toBe(2);
  }, 120_000);

  it('prints bash and zsh completion scripts that their shells accept', async () => {
    const bash = await cli(['completion', 'bash']);
    expect(bash.stdout).toContain('complete -o default -F _platform_complete platform');
    const checked = spawnSync('bash', ['-n'], { input: bash.stdout });
    expect({ status: checked.status, stderr: checked.stderr.toString() }).toEqual({ status: 0, stderr: '' });
    // Completing `platform agents p` offers `publish`.
    const completed = spawnSync('bash', ['-c', `${bash.stdout}\nCOMP_WORDS=(platform agents p); COMP_CWORD=2; _platform_complete; echo "\${COMPREPLY[@]}"`]);
    expect(completed.stdout.toString().trim()).toBe('publish');
    const zsh = await cli(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef platform/);
    expect((await cli(['completion', 'fish'])).code).toBe(2);
  });

  it('logout revokes the token and forgets it', async () => {
    const kept = JSON.parse(readFileSync(credentialsPath(), 'utf8'))[booted.urls.gateway];
    const result = await cli(['logout']);
    expect(shown(result)).toMatchObject({ code: 0, stdout: expect.stringContaining('Signed out') });
    expect(() => statSync(credentialsPath())).toThrow();
    expect((await cli(['whoami'])).code).toBe(3);
    const refresh = await fetch(`${booted.urls.auth}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: kept.refreshToken }),
    });
    expect(refresh.status).toBe(401);
  });
});
