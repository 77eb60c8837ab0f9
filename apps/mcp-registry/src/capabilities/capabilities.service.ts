import type { ReadScope } from '@platform/http';
import type { ConnectionService } from '../connections/connections.service';
import type { CapabilityRepository } from './capabilities.repository';

/**
 * One summary per capability name across connections that are not disconnected: its providers,
 * the tool calls made to it and their mean latency. The description is the first non-empty one a
 * server reported for a tool of that name.
 */
export class CapabilityService {
  constructor(
    private readonly repository: CapabilityRepository,
    private readonly connections: ConnectionService,
  ) {}

  /** Over the connections the caller may read (their providers, tools and calls). */
  async summary(scope: ReadScope) {
    const [connections, tools, calls] = await Promise.all([
      this.repository.liveCapabilityNames(scope),
      this.repository.liveTools(scope),
      this.connections.callsByTool(scope),
    ]);
    const providers = new Map<string, number>();
    for (const connection of connections) for (const name of connection.capabilityNames) providers.set(name, (providers.get(name) ?? 0) + 1);
    const descriptions = new Map<string, string>();
    for (const tool of tools) if (tool.description && !descriptions.has(tool.name)) descriptions.set(tool.name, tool.description);
    const capabilities = [...providers.entries()]
      .map(([name, count]) => ({
        name,
        description: descriptions.get(name) ?? '',
        providers: count,
        totalRequests: calls.get(name)?.requests ?? 0,
        averageLatency: calls.get(name)?.averageLatency ?? 0,
      }))
      .sort((a, b) => b.providers - a.providers || a.name.localeCompare(b.name));
    return { capabilities, totalCapabilities: capabilities.length };
  }
}
