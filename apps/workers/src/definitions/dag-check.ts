import type { workers } from '@platform/contracts';
import { templateReferences } from '../steps/templates';

export interface DefinitionIssue {
  path: string;
  message: string;
}

export interface DefinitionLimits {
  maxSteps: number;
  /** Datasource names a `database` step may use. */
  datasources: readonly string[];
  /** Whether agent steps are routed through the mesh (MESH_URL); without it an agent step needs a url. */
  meshRouting?: boolean;
}

/**
 * Checks a definition before anything runs: unique step ids, dependencies that exist, no cycle
 * (the cycle is named: `a → b → c → a`), a bounded number of steps, datasources that are
 * configured, and templates that only read steps the step depends on (directly or through others).
 */
export function checkDefinition(steps: readonly workers.StepDefinition[], limits: DefinitionLimits): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  if (steps.length > limits.maxSteps) issues.push({ path: 'steps', message: `at most ${limits.maxSteps} steps (WORKERS_MAX_STEPS), got ${steps.length}` });
  const index = new Map<string, number>();
  steps.forEach((step, i) => {
    if (index.has(step.id)) issues.push({ path: `steps.${i}.id`, message: `duplicate step id "${step.id}" (also steps.${index.get(step.id)})` });
    else index.set(step.id, i);
  });
  steps.forEach((step, i) => {
    const seen = new Set<string>();
    step.depends_on.forEach((dep, j) => {
      if (dep === step.id) issues.push({ path: `steps.${i}.depends_on.${j}`, message: `step "${step.id}" depends on itself` });
      else if (!index.has(dep)) issues.push({ path: `steps.${i}.depends_on.${j}`, message: `unknown step "${dep}"` });
      if (seen.has(dep)) issues.push({ path: `steps.${i}.depends_on.${j}`, message: `"${dep}" is listed twice` });
      seen.add(dep);
    });
    if (step.type === 'agent' && !step.url && !limits.meshRouting)
      issues.push({ path: `steps.${i}.url`, message: `agent step "${step.id}" needs a url: the mesh is not configured (MESH_URL)` });
    if (step.type === 'database' && step.datasource && !limits.datasources.includes(step.datasource)) {
      issues.push({
        path: `steps.${i}.datasource`,
        message: `unknown datasource "${step.datasource}" (configured: ${limits.datasources.join(', ') || 'none'})`,
      });
    }
  });
  if (issues.length > 0) return issues;

  const cycle = findCycle(steps);
  if (cycle) return [{ path: 'steps', message: `cycle: ${cycle.join(' → ')}` }];

  const ancestors = ancestorSets(steps);
  steps.forEach((step, i) => {
    for (const reference of templateReferences(step)) {
      if (reference === 'input') continue;
      if (!index.has(reference)) issues.push({ path: `steps.${i}`, message: `template reads unknown step "${reference}"` });
      else if (!ancestors.get(step.id)?.has(reference))
        issues.push({ path: `steps.${i}`, message: `template reads "${reference}", which "${step.id}" does not depend on` });
    }
  });
  return issues;
}

/** The first cycle found by a depth-first search, as the list of step ids closing on itself. */
export function findCycle(steps: readonly Pick<workers.StepDefinition, 'id' | 'depends_on'>[]): string[] | undefined {
  const deps = new Map(steps.map((step) => [step.id, step.depends_on]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const step of steps) {
    const found = visit(step.id);
    // Found walking dependencies (child → parent); read it in execution order.
    if (found) return found.reverse();
  }
  return undefined;
}

function ancestorSets(steps: readonly workers.StepDefinition[]): Map<string, Set<string>> {
  const deps = new Map(steps.map((step) => [step.id, step.depends_on]));
  const memo = new Map<string, Set<string>>();
  const of = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const set = new Set<string>();
    memo.set(id, set);
    for (const dep of deps.get(id) ?? []) {
      set.add(dep);
      for (const above of of(dep)) set.add(above);
    }
    return set;
  };
  for (const step of steps) of(step.id);
  return memo;
}
