import { workflowEngine } from '@platform/contracts';
import { collect, executionEvents, paginate, unwrap } from '@platform/sdk';
import type { Command } from 'commander';
import { createContext, positiveInt, readDocument, type Io } from '../context';
import { CliError, ExitCode } from '../exit-codes';
import { table } from '../output';
import { RunProgress } from '../progress';

export function workflowCommands(program: Command, io: Io): void {
  const workflows = program.command('workflows').description('Visual workflows on the workflow engine: create, list, run and follow');

  workflows
    .command('create <file>')
    .description('Create a workflow from a JSON or YAML file ({name, category, flow: {nodes, edges}}), checked locally first')
    .action(async (file: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const parsed = workflowEngine.CreateWorkflowRequest.safeParse(readDocument(file));
      if (!parsed.success) {
        throw new CliError(
          `${file} is not a valid workflow`,
          ExitCode.invalidInput,
          parsed.error.issues.map(
            (issue) => `$${issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('')}: ${issue.message}`,
          ),
        );
      }
      const platform = await context.platform();
      const created = await unwrap(platform.workflowEngine.POST('/api/v1/workflows', { body: parsed.data as never }));
      context.out.data(created, () => `Created workflow ${created.id} (${created.name}, version ${created.version})`);
    });

  workflows
    .command('list')
    .description('Workflows you may read')
    .option('--category <category>', 'only this category')
    .option('--limit <n>', 'at most this many', positiveInt, 100)
    .action(async (options: { category?: string; limit: number }, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const rows = await collect(
        paginate(
          (page) =>
            platform.workflowEngine.GET('/api/v1/workflows/catalog', {
              params: { query: { ...page, ...(options.category && { category: options.category }) } },
            }),
          { max: options.limit, pageSize: Math.min(options.limit, 500) },
        ),
      );
      context.out.data(rows, () =>
        table(rows, [
          { header: 'id', value: (row) => row.id },
          { header: 'name', value: (row) => row.name },
          { header: 'category', value: (row) => row.category },
          { header: 'nodes', value: (row) => row.components },
        ]),
      );
    });

  workflows
    .command('run <id>')
    .description("Start a run; with --follow, every node's progress as it runs, from the run's WebSocket stream")
    .option('--input <file>', 'inputs keyed by node id, merged over its data (JSON or YAML file)')
    .option('-f, --follow', 'follow the run to its end (exit 1 when it fails)')
    .action(async (id: string, options: { input?: string; follow?: boolean }, command: Command) => {
      const context = createContext(command, io);
      const inputs = options.input ? readDocument(options.input) : {};
      const platform = await context.platform();
      const accepted = (await unwrap(
        platform.workflowEngine.POST('/api/v1/workflows/{workflowId}/execute', {
          params: { path: { workflowId: id } },
          body: { inputs, options: { async: true } } as never,
        }),
      )) as { executionId: string; status: string };
      if (!options.follow) {
        context.out.data(accepted, () => `Started run ${accepted.executionId} (${accepted.status})`);
        return;
      }
      const workflow = await unwrap(platform.workflowEngine.GET('/api/v1/workflows/{workflowId}', { params: { path: { workflowId: id } } }));
      const progress = new RunProgress(workflow.flow.nodes.length);
      if (context.out.format === 'table') context.out.line(`Run ${accepted.executionId} of ${workflow.name}: ${workflow.flow.nodes.length} nodes`);
      let outcome: string | undefined;
      let failure: unknown;
      for await (const event of await executionEvents(platform, accepted.executionId)) {
        if (context.out.format === 'table') {
          const line = progress.line(event);
          if (line) context.out.line(line);
        } else context.io.stdout.write(`${JSON.stringify(event)}\n`);
        if (event.type === 'workflow-completed' || event.type === 'workflow-failed') {
          outcome = event.type;
          failure = event.error;
        }
      }
      if (outcome === 'workflow-failed')
        throw new CliError(`run ${accepted.executionId} failed${failure ? `: ${JSON.stringify(failure)}` : ''}`, ExitCode.apiError);
      if (!outcome) throw new CliError(`the stream of run ${accepted.executionId} ended before the run did`, ExitCode.network);
    });

  workflows
    .command('runs <id>')
    .description("A workflow's runs, newest first")
    .option('--limit <n>', 'at most this many', positiveInt, 50)
    .action(async (id: string, options: { limit: number }, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const rows = await collect(
        paginate((page) => platform.workflowEngine.GET('/api/v1/workflows/{workflowId}/executions', { params: { path: { workflowId: id }, query: page } }), {
          max: options.limit,
          pageSize: Math.min(options.limit, 500),
        }),
      );
      context.out.data(rows, () =>
        table(rows, [
          { header: 'run', value: (row) => row.executionId },
          { header: 'status', value: (row) => row.status },
          { header: 'started', value: (row) => row.startedAt },
          { header: 'ms', value: (row) => row.duration },
        ]),
      );
    });

  workflows
    .command('run-status <runId>')
    .description("One run: each node's status, duration and attempts, the result or the error")
    .action(async (runId: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const run = await unwrap(platform.workflowEngine.GET('/api/v1/executions/{executionId}', { params: { path: { executionId: runId } } }));
      context.out.data(run, () =>
        [
          `Run ${run.executionId}: ${run.status}${run.duration != null ? ` in ${run.duration} ms` : ''}`,
          table(run.nodes as Array<Record<string, unknown>>, [
            { header: 'node', value: (node) => node.nodeId },
            { header: 'status', value: (node) => node.status },
            { header: 'ms', value: (node) => node.duration },
            { header: 'attempts', value: (node) => node.attempts },
          ]),
        ].join('\n'),
      );
    });
}
