import { collect, paginate, unwrap } from '@platform/sdk';
import type { Command } from 'commander';
import { createContext, parseJsonObject, positiveInt, type Io } from '../context';
import { table } from '../output';

export function mcpCommands(program: Command, io: Io): void {
  const mcp = program.command('mcp').description('MCP servers in the MCP registry: list connections, their tools, call a tool');

  mcp
    .command('list')
    .description('Connections you may read')
    .option('--limit <n>', 'at most this many', positiveInt, 100)
    .action(async (options: { limit: number }, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const rows = await collect(
        paginate((page) => platform.mcpRegistry.GET('/connections', { params: { query: page } }), {
          max: options.limit,
          pageSize: Math.min(options.limit, 500),
        }),
      );
      context.out.data(rows, () =>
        table(rows, [
          { header: 'id', value: (row) => row.id },
          { header: 'name', value: (row) => row.name },
          { header: 'protocol', value: (row) => row.protocol },
          { header: 'status', value: (row) => row.status },
        ]),
      );
    });

  mcp
    .command('tools <connection>')
    .description('The tools the connection’s server reports')
    .action(async (connectionId: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const connection = (await unwrap(platform.mcpRegistry.GET('/connections/{connectionId}', { params: { path: { connectionId } } }))) as Record<
        string,
        unknown
      >;
      const tools = (connection.tools ?? connection.capabilities ?? []) as Array<{ name: string; description?: string }>;
      context.out.data(tools, () =>
        table(tools, [
          { header: 'tool', value: (tool) => tool.name },
          { header: 'description', value: (tool) => tool.description },
        ]),
      );
    });

  mcp
    .command('call <connection> <tool>')
    .description('Call a tool of the connection’s server')
    .option('--args <json>', "the tool's arguments, a JSON object", '{}')
    .option('--timeout <ms>', 'how long to wait', positiveInt)
    .action(async (connectionId: string, tool: string, options: { args: string; timeout?: number }, command: Command) => {
      const context = createContext(command, io);
      const args = parseJsonObject(options.args, '--args');
      const platform = await context.platform();
      const answer = await unwrap(
        platform.mcpRegistry.POST('/connections/{connectionId}/tools/{tool}/call', {
          params: { path: { connectionId, tool } },
          body: { arguments: args, ...(options.timeout && { timeout: options.timeout }) },
        }),
      );
      context.out.data(answer, () => {
        const content = (answer.result.content ?? []) as Array<{ type?: string; text?: string }>;
        const text = content.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('\n');
        return `${text}${answer.result.isError ? '\n(the tool reported an error)' : ''}`;
      });
    });
}
