import type { master } from '@platform/contracts';

export interface GraphIssue {
  path: string;
  code: string;
  message: string;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const STEP_REFERENCE = /^steps\.([a-zA-Z][a-zA-Z0-9_-]*)\.output(?:\.[^.\s]+)*$/;
const INPUT_REFERENCE = /^input(?:\.[^.\s]+)+$/;

/** Every string inside an inputs object, with its path. */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [value, path];
  else if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* strings(item, `${path}.${index}`);
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) yield* strings(item, `${path}.${key}`);
}

/**
 * Checks a workflow's steps as a DAG: unique ids, known dependencies, no cycle, and templates
 * that only read the workflow's inputs (`{{input.x}}`) or the output of a step upstream of
 * theirs (`{{steps.<id>.output.x}}`). Returns the steps in a topological order.
 */
export function checkGraph(steps: master.WorkflowStep[]): { issues: GraphIssue[]; order: string[] } {
  const issues: GraphIssue[] = [];
  const index = new Map<string, number>();
  steps.forEach((step, i) => {
    if (index.has(step.id)) issues.push({ path: `body.steps.${i}.id`, code: 'duplicate_step', message: `step id ${step.id} is used twice` });
    else index.set(step.id, i);
  });
  steps.forEach((step, i) =>
    step.dependsOn.forEach((dependency, j) => {
      if (!index.has(dependency)) issues.push({ path: `body.steps.${i}.dependsOn.${j}`, code: 'unknown_step', message: `no step ${dependency}` });
      if (dependency === step.id) issues.push({ path: `body.steps.${i}.dependsOn.${j}`, code: 'cycle', message: `step ${step.id} depends on itself` });
    }),
  );
  if (issues.length > 0) return { issues, order: [] };

  // Kahn's algorithm: what is left once no step is free is a cycle.
  const remaining = new Map(steps.map((step) => [step.id, new Set(step.dependsOn)]));
  const order: string[] = [];
  while (remaining.size > 0) {
    const free = [...remaining].filter(([, dependencies]) => dependencies.size === 0).map(([id]) => id);
    if (free.length === 0) {
      const cycle = [...remaining.keys()];
      issues.push({
        path: `body.steps.${index.get(cycle[0])}.dependsOn`,
        code: 'cycle',
        message: `the steps ${cycle.join(', ')} depend on each other in a cycle`,
      });
      return { issues, order: [] };
    }
    for (const id of free) {
      order.push(id);
      remaining.delete(id);
      for (const dependencies of remaining.values()) dependencies.delete(id);
    }
  }

  const ancestors = new Map<string, Set<string>>();
  for (const id of order) {
    const step = steps[index.get(id)!];
    const all = new Set<string>();
    for (const dependency of step.dependsOn) {
      all.add(dependency);
      for (const ancestor of ancestors.get(dependency) ?? []) all.add(ancestor);
    }
    ancestors.set(id, all);
  }
  steps.forEach((step, i) => {
    for (const [value, path] of strings(step.inputs, `body.steps.${i}.inputs`)) {
      for (const match of value.matchAll(PLACEHOLDER)) {
        const reference = match[1];
        const upstream = STEP_REFERENCE.exec(reference)?.[1];
        if (upstream !== undefined) {
          if (!ancestors.get(step.id)!.has(upstream)) {
            issues.push({ path, code: 'template_not_upstream', message: `{{${reference}}} reads step ${upstream}, which is not upstream of ${step.id}` });
          }
        } else if (!INPUT_REFERENCE.test(reference)) {
          issues.push({ path, code: 'template_invalid', message: `{{${reference}}}: use {{input.<name>}} or {{steps.<id>.output.<path>}}` });
        }
      }
    }
  });
  return { issues, order };
}

/** Fills `{{input.x}}` placeholders from the execution's inputs; step outputs are left to the engine. */
export function fillInputs(value: unknown, inputs: Record<string, unknown>, path: string, missing: GraphIssue[]): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*(input(?:\.[^.\s{}]+)+)\s*\}\}$/.exec(value);
    if (whole) return lookup(whole[1], inputs, path, missing);
    return value.replace(PLACEHOLDER, (placeholder, reference: string) => {
      if (!INPUT_REFERENCE.test(reference)) return placeholder;
      const found = lookup(reference, inputs, path, missing);
      return typeof found === 'string' ? found : JSON.stringify(found ?? null);
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => fillInputs(item, inputs, `${path}.${i}`, missing));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillInputs(item, inputs, `${path}.${key}`, missing)]));
  }
  return value;
}

function lookup(reference: string, inputs: Record<string, unknown>, path: string, missing: GraphIssue[]): unknown {
  let current: unknown = inputs;
  for (const key of reference.split('.').slice(1)) {
    current = current !== null && typeof current === 'object' && Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  if (current === undefined) missing.push({ path, code: 'input_missing', message: `{{${reference}}} has no value: pass it in body.inputs` });
  return current;
}

/**
 * Rewrites the master's `{{steps.<id>.output.<path>}}` into the workers engine's own form,
 * `{{<id>.body.<path>}}` (an agent step's output there is the HTTP answer `{status, headers, body}`).
 */
export function engineTemplates(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (placeholder, reference: string) => {
      const match = /^steps\.([a-zA-Z][a-zA-Z0-9_-]*)\.output((?:\.[^.\s]+)*)$/.exec(reference);
      return match ? `{{${match[1]}.body${match[2]}}}` : placeholder;
    });
  }
  if (Array.isArray(value)) return value.map(engineTemplates);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, engineTemplates(item)]));
  return value;
}
