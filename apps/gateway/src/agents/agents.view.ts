import type { gateway } from '@platform/contracts';
import type { z } from 'zod';
import type { AgentRow } from './agents.repository';

type Manifest = { security?: { capabilities?: { required?: string[]; optional?: string[] } } };

export function agentView(row: AgentRow): z.infer<typeof gateway.GatewayAgent> {
  const manifest = row.manifest as Record<string, unknown>;
  const security = (manifest as Manifest).security?.capabilities;
  return {
    id: row.id,
    namespace: row.namespace,
    name: row.name,
    version: row.version,
    status: row.status as z.infer<typeof gateway.AgentStatus>,
    owner: row.ownerSub,
    team: row.team,
    endpoint: row.endpoint,
    deployment: row.deployment as { deployer: 'none' | 'kubernetes' },
    refs: row.refs as Record<string, unknown>,
    capabilities: [...new Set([...(security?.required ?? []), ...(security?.optional ?? [])])],
    error: row.error,
    steps: row.steps.map((step) => ({
      operation: step.operation as 'create' | 'update' | 'delete',
      step: step.step as z.infer<typeof gateway.SagaStepName>,
      status: step.status as z.infer<typeof gateway.StepStatus>,
      detail: step.detail ?? null,
      error: step.error,
      startedAt: step.startedAt.toISOString(),
      finishedAt: step.finishedAt?.toISOString() ?? null,
    })),
    manifest,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
