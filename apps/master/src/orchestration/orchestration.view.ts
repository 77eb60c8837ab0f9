import type { master } from '@platform/contracts';
import type { ExecutionRow, WorkflowRow } from './orchestration.repository';

export function workflowView(row: WorkflowRow): master.Workflow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    steps: row.steps as master.WorkflowStep[],
    capabilities: row.capabilities,
    createdBy: row.createdBy,
    owner: row.owner,
    team: row.team,
    createdAt: row.createdAt.toISOString(),
  };
}

export function executionView(row: ExecutionRow): master.Execution {
  return {
    id: row.id,
    workflowId: row.workflowId,
    workersWorkflowId: row.workersId,
    state: row.state as master.ExecutionState,
    inputs: row.inputs as Record<string, unknown>,
    steps: row.steps as master.StepState[],
    error: row.error,
    requestedBy: row.requestedBy,
    owner: row.owner,
    team: row.team,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    lastSyncedAt: row.lastSyncedAt?.toISOString() ?? null,
  };
}
