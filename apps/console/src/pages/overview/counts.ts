import { unwrap, type Platform } from '../../api';

/** A figure of the Overview: its value and, where the API cannot give the exact figure, what it is. */
export interface Figure {
  value: number;
  note?: string;
}

/** The start of the current UTC day, as tracing's `from` takes it. */
export function startOfUtcDay(now: Date): string {
  return `${now.toISOString().slice(0, 10)}T00:00:00Z`;
}

/** How many executions failed since `since`, of a page of executions (newest first). */
export function failedSince(executions: readonly { status: string; startedAt: string }[], since: number): number {
  return executions.filter((execution) => execution.status === 'failed' && Date.parse(execution.startedAt) >= since).length;
}

/** Workflows whose histories the failure count reads: one call each, so a bounded number. */
export const FAILED_WORKFLOWS_READ = 20;
/** The newest executions of each workflow read for the failure count. */
export const FAILED_EXECUTIONS_READ = 100;

/** Each figure from the cheapest call that gives it (a page of one item carries the total). */
export const figures = {
  async agents(platform: Platform): Promise<Figure> {
    const page = await unwrap(platform.registry.GET('/api/v1/agents', { params: { query: { limit: 1 } } }));
    return { value: page.total };
  },

  async liveMeshAgents(platform: Platform): Promise<Figure> {
    const counts = await unwrap(platform.mesh.GET('/api/v1/agents/count'));
    return { value: counts.routable, note: `routable, of ${counts.total} registered` };
  },

  async workflows(platform: Platform): Promise<Figure> {
    const page = await unwrap(platform.workflowEngine.GET('/api/v1/workflows/catalog', { params: { query: { limit: 1 } } }));
    return { value: page.total };
  },

  async runningRuns(platform: Platform): Promise<Figure> {
    const page = await unwrap(platform.workers.GET('/api/v1/workflows/running', { params: { query: { limit: 1 } } }));
    return { value: page.total, note: 'in progress' };
  },

  async spansToday(platform: Platform, now = new Date()): Promise<Figure> {
    const counts = await unwrap(platform.tracing.GET('/api/spans/count', { params: { query: { from: startOfUtcDay(now) } } }));
    return { value: counts.total, note: 'since 00:00 UTC' };
  },

  /**
   * No endpoint counts failed executions across workflows: this reads the newest executions of the
   * most recent workflows, and says so when there were more to read.
   */
  async failedLastHour(platform: Platform, now = Date.now()): Promise<Figure> {
    const catalog = await unwrap(platform.workflowEngine.GET('/api/v1/workflows/catalog', { params: { query: { limit: FAILED_WORKFLOWS_READ } } }));
    const since = now - 3_600_000;
    const histories = await Promise.all(
      catalog.workflows.map((workflow) =>
        unwrap(
          platform.workflowEngine.GET('/api/v1/workflows/{workflowId}/executions', {
            params: { path: { workflowId: workflow.id }, query: { limit: FAILED_EXECUTIONS_READ } },
          }),
        ),
      ),
    );
    const value = histories.reduce((sum, history) => sum + failedSince(history.executions, since), 0);
    const partial = catalog.total > catalog.workflows.length || histories.some((h) => h.total > h.executions.length);
    return {
      value,
      note: partial
        ? `of the newest ${FAILED_EXECUTIONS_READ} executions of ${catalog.workflows.length} of ${catalog.total} workflows`
        : 'workflow executions',
    };
  },
};
export type FigureName = keyof typeof figures;
