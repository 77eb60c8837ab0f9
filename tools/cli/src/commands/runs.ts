import { collect, paginate, unwrap } from '@platform/sdk';
import type { Command } from 'commander';
import { createContext, positiveInt, type Io } from '../context';
import { table } from '../output';

/** Durable task runs on the workers service (DAGs of http, agent and database steps). */
export function runCommands(program: Command, io: Io): void {
  const runs = program.command('runs').description('Durable task runs (workers): list running ones, show one, cancel, retry');
  const path = (id: string) => ({ params: { path: { workflow_id: id } } });

  runs
    .command('list')
    .description('Runs in progress, newest first')
    .option('--limit <n>', 'at most this many', positiveInt, 100)
    .action(async (options: { limit: number }, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const rows = await collect(
        paginate((page) => platform.workers.GET('/api/v1/workflows/running', { params: { query: page } }), {
          max: options.limit,
          pageSize: Math.min(options.limit, 500),
        }),
      );
      context.out.data(rows, () =>
        table(rows, [
          { header: 'run', value: (row) => row.workflow_id },
          { header: 'name', value: (row) => row.name },
          { header: 'version', value: (row) => row.version },
          { header: 'state', value: (row) => row.state },
        ]),
      );
    });

  runs
    .command('show <id>')
    .description("A run's steps with their states and attempts, and its edges")
    .action(async (id: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const dag = await unwrap(platform.workers.GET('/api/v1/workflows/{workflow_id}/dag', path(id)));
      context.out.data(dag, () =>
        [
          `Run ${dag.workflow_id}: ${dag.state}${dag.error ? ` (${dag.error})` : ''}`,
          table(dag.nodes as Array<Record<string, unknown>>, [
            { header: 'step', value: (node) => node.id },
            { header: 'state', value: (node) => node.state },
            { header: 'attempt', value: (node) => node.attempt },
          ]),
        ].join('\n'),
      );
    });

  runs
    .command('cancel <id>')
    .description('Cancel a run that has not ended (409 once it has)')
    .action(async (id: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const answer = await unwrap(platform.workers.POST('/api/v1/workflows/{workflow_id}/cancel', path(id)));
      context.out.data(answer);
    });

  runs
    .command('retry <id>')
    .description('Run a failed or cancelled run again from its unfinished steps')
    .action(async (id: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const answer = await unwrap(platform.workers.POST('/api/v1/workflows/{workflow_id}/retry', path(id)));
      context.out.data(answer);
    });
}
