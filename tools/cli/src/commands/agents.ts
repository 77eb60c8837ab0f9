import { validateManifest } from '@platform/manifest';
import { paginate, unwrap, type PlatformClient } from '@platform/sdk';
import type { Command } from 'commander';
import { createContext, positiveInt, readDocument, readText, type Io } from '../context';
import { CliError, ExitCode } from '../exit-codes';
import { table } from '../output';

interface GatewayAgent {
  id: string;
  namespace: string;
  name: string;
  version: string;
  status: string;
  refs?: Record<string, unknown>;
  [key: string]: unknown;
}

const AGENT_COLUMNS = [
  { header: 'id', value: (agent: GatewayAgent) => agent.id },
  { header: 'namespace', value: (agent: GatewayAgent) => agent.namespace },
  { header: 'name', value: (agent: GatewayAgent) => agent.name },
  { header: 'version', value: (agent: GatewayAgent) => agent.version },
  { header: 'status', value: (agent: GatewayAgent) => agent.status },
];

async function agentById(platform: PlatformClient, id: string): Promise<GatewayAgent> {
  return (await unwrap(platform.gateway.GET('/api/v1/agents/{agentId}', { params: { path: { agentId: id } } }))) as GatewayAgent;
}

/** Sets the manifest's `metadata.status` in master, where an agent's state lives. */
async function setStatus(platform: PlatformClient, id: string, status: 'deprecated' | 'revoked') {
  const agent = await agentById(platform, id);
  const masterId = agent.refs?.masterId;
  if (typeof masterId !== 'string') throw new CliError(`agent ${id} has no record in master (status ${agent.status})`, ExitCode.apiError);
  const inMaster = await unwrap(platform.master.GET('/api/v1/agents/{agentId}', { params: { path: { agentId: masterId } } }));
  const manifest = structuredClone(inMaster.manifest) as { metadata?: Record<string, unknown> };
  manifest.metadata = { ...manifest.metadata, status };
  const updated = await unwrap(platform.master.PUT('/api/v1/agents/{agentId}', { params: { path: { agentId: masterId } }, body: manifest }));
  return { id, masterId, namespace: updated.namespace, name: updated.name, status: updated.status };
}

export function agentCommands(program: Command, io: Io): void {
  const agents = program.command('agents').description('Agents: publish a manifest, list, inspect, deprecate, revoke, execute');

  agents
    .command('publish <manifest>')
    .description('Validate a manifest (JSON or YAML) locally, then publish it through the gateway (registry, master, mesh, tracing)')
    .option('--team <team>', 'share the agent with a team')
    .option('--endpoint <url>', "the agent's own URL (no deployment)")
    .option('--image <image>', 'a container image to deploy')
    .action(async (file: string, options: { team?: string; endpoint?: string; image?: string }, command: Command) => {
      const context = createContext(command, io);
      const validation = validateManifest(readText(file));
      if (!validation.valid) {
        throw new CliError(
          `${file} is not a valid manifest (schema ${validation.schemaVersion}): ${validation.errors.length} error${validation.errors.length > 1 ? 's' : ''}`,
          ExitCode.invalidInput,
          validation.errors.map((issue) => `${issue.path}: ${issue.message} (${issue.code})`),
        );
      }
      for (const warning of validation.warnings) context.out.note(`warning: ${warning.path}: ${warning.message}`);
      const platform = await context.platform();
      const deployment =
        options.endpoint || options.image
          ? { ...(options.endpoint && { endpoint: options.endpoint }), ...(options.image && { image: options.image }) }
          : undefined;
      const created = (await unwrap(
        platform.gateway.POST('/api/v1/agents', {
          body: {
            manifest: validation.manifest as Record<string, unknown>,
            ...(deployment && { deployment }),
            ...(options.team && { team: options.team }),
          } as never,
        }),
      )) as GatewayAgent;
      context.out.data(created, () => table([created], AGENT_COLUMNS));
    });

  agents
    .command('list')
    .description('Agents you may read, through the gateway')
    .option('--namespace <namespace>', 'only this namespace')
    .option('--limit <n>', 'at most this many', positiveInt, 100)
    .action(async (options: { namespace?: string; limit: number }, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const items: GatewayAgent[] = [];
      const pages = paginate(
        (page) => platform.gateway.GET('/api/v1/agents', { params: { query: { ...page, ...(options.namespace && { namespace: options.namespace }) } } }),
        { max: options.limit, pageSize: Math.min(options.limit, 500) },
      );
      for await (const agent of pages) items.push(agent as GatewayAgent);
      context.out.data(items, () => table(items, AGENT_COLUMNS));
    });

  agents
    .command('show <id>')
    .description("One agent: its manifest, where it landed (refs) and the saga's steps")
    .action(async (id: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const agent = await agentById(await context.platform(), id);
      context.out.data(agent);
    });

  agents
    .command('versions <id>')
    .description("The agent's published versions in the registry")
    .action(async (id: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const agent = await agentById(platform, id);
      const versions = await unwrap(
        platform.registry.GET('/api/v1/agents/{namespace}/{name}/versions', {
          params: { path: { namespace: agent.namespace, name: agent.name }, query: { limit: 500 } },
        }),
      );
      const rows = versions.items as Array<Record<string, unknown>>;
      context.out.data(versions, () =>
        table(rows, [
          { header: 'version', value: (row) => row.version },
          { header: 'published', value: (row) => row.publishedAt ?? row.createdAt },
          { header: 'latest', value: (row) => (row.version === versions.latest ? 'yes' : '') },
        ]),
      );
    });

  for (const [name, status] of [
    ['deprecate', 'deprecated'],
    ['revoke', 'revoked'],
  ] as const) {
    agents
      .command(`${name} <id>`)
      .description(`Mark the agent ${status} (its manifest's metadata.status, in master)`)
      .action(async (id: string, _options: unknown, command: Command) => {
        const context = createContext(command, io);
        const result = await setStatus(await context.platform(), id, status);
        context.out.data(result);
      });
  }

  agents
    .command('execute <id>')
    .description('Send a task to the agent through the mesh and print its answer')
    .requiredOption('--input <file>', 'the task input, a JSON (or YAML) file')
    .option('--timeout <ms>', 'how long to wait for the answer', positiveInt)
    .action(async (id: string, options: { input: string; timeout?: number }, command: Command) => {
      const context = createContext(command, io);
      const input = readDocument(options.input);
      const platform = await context.platform();
      const answer = await unwrap(
        platform.gateway.POST('/api/v1/agents/{agentId}/execute', {
          params: { path: { agentId: id } },
          body: { input, ...(options.timeout && { timeout_ms: options.timeout }) },
        }),
      );
      context.out.data(answer);
    });
}
