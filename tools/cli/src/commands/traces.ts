import { paginateCursor, unwrap, type PlatformClient } from '@platform/sdk';
import type { Command } from 'commander';
import { createContext, positiveInt, type Io } from '../context';

interface SpanNode {
  span_id: string;
  name: string;
  project: string;
  kind: string;
  duration_ms: number;
  status?: { code: string; message?: string | null };
  children?: SpanNode[];
}

/** The span tree as indented lines, each with its duration. */
export function treeLines(nodes: readonly SpanNode[], prefix = ''): string[] {
  return nodes.flatMap((node, index) => {
    const last = index === nodes.length - 1;
    const error = node.status?.code === 'ERROR' ? `  ERROR${node.status.message ? `: ${node.status.message}` : ''}` : '';
    return [
      `${prefix}${last ? '└─' : '├─'} ${node.name}  (${node.project}, ${node.kind})  ${node.duration_ms.toFixed(1)} ms${error}`,
      ...treeLines(node.children ?? [], `${prefix}${last ? '   ' : '│  '}`),
    ];
  });
}

async function projects(platform: PlatformClient, chosen: string[]): Promise<string[]> {
  if (chosen.length) return chosen;
  const counts = await unwrap(platform.tracing.GET('/api/spans/count'));
  return counts.projects.map((entry) => entry.project);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function traceCommands(program: Command, io: Io): void {
  const traces = program.command('traces').description('Traces in the tracing service: follow new spans, show one trace as a tree');

  traces
    .command('tail')
    .description('Print new spans as they arrive (every project, or those named), until Ctrl-C or --max')
    .option('--project <project>', 'only this project (repeatable)', collect, [])
    .option('--service <service>', "only this platform service's own spans (its project; repeatable)", collect, [])
    .option('--interval <ms>', 'how often to ask', positiveInt, 1000)
    .option('--max <n>', 'stop after this many spans', positiveInt)
    .action(async (options: { project: string[]; service: string[]; interval: number; max?: number }, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const chosen = [...options.project, ...options.service];
      const seen = new Set<string>();
      // Spans are committed in batches, late by up to a few seconds: each poll looks back a little.
      let since = Date.now() - 2000;
      let printed = 0;
      let stopped = false;
      const stop = () => (stopped = true);
      process.once('SIGINT', stop);
      try {
        while (!stopped) {
          const from = new Date(since - 10_000).toISOString();
          const fresh = [];
          for (const project of await projects(platform, chosen)) {
            for await (const span of paginateCursor(
              (cursor) =>
                platform.tracing.GET('/api/projects/{project}/spans', {
                  params: { path: { project }, query: { limit: 200, from, ...(cursor && { cursor }) } },
                }),
              { max: 2000 },
            )) {
              if (!seen.has(span.span_id)) fresh.push(span);
            }
          }
          fresh.sort((a, b) => a.start_time.localeCompare(b.start_time));
          for (const span of fresh) {
            seen.add(span.span_id);
            since = Math.max(since, Date.parse(span.start_time) || since);
            if (context.out.format === 'table') {
              const status = span.status.code === 'ERROR' ? '  ERROR' : '';
              context.out.line(`${span.start_time}  ${span.project}  ${span.name}  ${span.duration_ms.toFixed(1)} ms  trace ${span.trace_id}${status}`);
            } else context.io.stdout.write(`${JSON.stringify(span)}\n`);
            printed += 1;
            if (options.max && printed >= options.max) return;
          }
          if (seen.size > 100_000) seen.clear();
          await new Promise((resolve) => setTimeout(resolve, options.interval));
        }
      } finally {
        process.removeListener('SIGINT', stop);
      }
    });

  traces
    .command('show <traceId>')
    .description('One trace as a tree of spans with their durations')
    .action(async (traceId: string, _options: unknown, command: Command) => {
      const context = createContext(command, io);
      const platform = await context.platform();
      const trace = await unwrap(platform.tracing.GET('/api/traces/{trace_id}', { params: { path: { trace_id: traceId } } }));
      context.out.data(trace, () =>
        [
          `Trace ${trace.trace_id}: ${trace.span_count} spans in ${trace.duration_ms.toFixed(1)} ms (${trace.projects.join(', ')})`,
          ...treeLines(trace.spans as unknown as SpanNode[]),
        ].join('\n'),
      );
    });
}
