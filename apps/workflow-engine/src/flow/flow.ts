import type { workflowEngine } from '@platform/contracts';
import { badRequest } from '@platform/http';
import type { z } from 'zod';
import { componentOf } from '../components/library';

type Flow = workflowEngine.Flow;
type FlowEdge = workflowEngine.FlowEdge;

/** `{{<node_id>.<field>}}`, optionally deeper: `{{<node_id>.<field>.<key>...}}`. */
const TEMPLATE = /\{\{\s*([A-Za-z][A-Za-z0-9_-]*)\.([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;
const WHOLE_TEMPLATE = new RegExp(`^${TEMPLATE.source}$`);
/** The name a Loop body uses for its current item. */
const LOOP_ITEM = 'item';

export interface FlowIssue {
  nodeId?: string;
  field: string;
  message: string;
}

export interface Graph {
  order: string[];
  parents: Map<string, FlowEdge[]>;
  children: Map<string, FlowEdge[]>;
}

/** Parents, children and a topological order; `undefined` order when there is a cycle. */
export function graphOf(flow: Pick<Flow, 'nodes' | 'edges'>): Graph & { cycle?: string[] } {
  const parents = new Map<string, FlowEdge[]>(flow.nodes.map((node) => [node.id, []]));
  const children = new Map<string, FlowEdge[]>(flow.nodes.map((node) => [node.id, []]));
  for (const edge of flow.edges) {
    if (!parents.has(edge.target) || !children.has(edge.source)) continue;
    parents.get(edge.target)?.push(edge);
    children.get(edge.source)?.push(edge);
  }
  const indegree = new Map(flow.nodes.map((node) => [node.id, parents.get(node.id)?.length ?? 0]));
  const ready = flow.nodes.filter((node) => indegree.get(node.id) === 0).map((node) => node.id);
  const order: string[] = [];
  while (ready.length) {
    const id = ready.shift() as string;
    order.push(id);
    for (const edge of children.get(id) ?? []) {
      const left = (indegree.get(edge.target) ?? 0) - 1;
      indegree.set(edge.target, left);
      if (left === 0) ready.push(edge.target);
    }
  }
  const cycle = order.length === flow.nodes.length ? undefined : flow.nodes.map((node) => node.id).filter((id) => !order.includes(id));
  return { order, parents, children, cycle };
}

function ancestorsOf(id: string, parents: Map<string, FlowEdge[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [...(parents.get(id) ?? []).map((edge) => edge.source)];
  while (stack.length) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(parents.get(next) ?? []).map((edge) => edge.source));
  }
  return seen;
}

/** Every template reference in a value, with the dotted field path where it sits. */
export function referencesIn(value: unknown, path = ''): Array<{ field: string; node: string; output: string }> {
  if (typeof value === 'string') return [...value.matchAll(TEMPLATE)].map((match) => ({ field: path, node: match[1], output: match[2] }));
  if (Array.isArray(value)) return value.flatMap((entry, index) => referencesIn(entry, `${path}[${index}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, entry]) => referencesIn(entry, path ? `${path}.${key}` : key));
  return [];
}

/** Checks a node's data against its component's input schema; top-level fields that are one whole template are checked at run time. */
export function checkNodeData(type: string, data: Record<string, unknown>): Array<{ field: string; message: string }> {
  const component = componentOf(type);
  if (!component) return [];
  const templated = Object.fromEntries(
    Object.entries(data)
      .filter(([, value]) => typeof value === 'string' && WHOLE_TEMPLATE.test(value))
      .map(([key]) => [key, true as const]),
  );
  const schema = Object.keys(templated).length ? (component.input.omit(templated as never) as z.ZodObject) : component.input;
  const result = schema.safeParse(data);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ field: issue.path.map(String).join('.') || '(data)', message: issue.message }));
}

/**
 * Validates a flow before it is stored; every issue names the node and the field: known types,
 * data against the component's input schema, edges between existing nodes, no cycle, and template
 * references to upstream nodes and to outputs their components have.
 */
export function validateFlow(flow: Flow): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const byId = new Map<string, Flow['nodes'][number]>();
  flow.nodes.forEach((node, index) => {
    if (byId.has(node.id)) issues.push({ nodeId: node.id, field: `nodes[${index}].id`, message: `Duplicate node id ${node.id}` });
    byId.set(node.id, node);
    const component = componentOf(node.type);
    if (!component) {
      issues.push({ nodeId: node.id, field: `nodes[${index}].type`, message: `Unknown component type ${node.type}` });
      return;
    }
    for (const problem of checkNodeData(node.type, node.data))
      issues.push({ nodeId: node.id, field: `nodes[${index}].data.${problem.field}`, message: problem.message });
  });
  flow.edges.forEach((edge, index) => {
    if (!byId.has(edge.source))
      issues.push({ nodeId: edge.source, field: `edges[${index}].source`, message: `Edge source ${edge.source} is not a node of the flow` });
    if (!byId.has(edge.target))
      issues.push({ nodeId: edge.target, field: `edges[${index}].target`, message: `Edge target ${edge.target} is not a node of the flow` });
    if (edge.source === edge.target) issues.push({ nodeId: edge.source, field: `edges[${index}]`, message: 'An edge may not connect a node to itself' });
    if (edge.sourceHandle && byId.get(edge.source)?.type !== 'Condition')
      issues.push({ nodeId: edge.source, field: `edges[${index}].sourceHandle`, message: 'Only edges leaving a Condition take a sourceHandle' });
  });
  const graph = graphOf(flow);
  if (graph.cycle) issues.push({ nodeId: graph.cycle[0], field: 'edges', message: `The edges form a cycle through ${graph.cycle.join(', ')}` });
  flow.nodes.forEach((node, index) => {
    const ancestors = graph.cycle ? new Set<string>() : ancestorsOf(node.id, graph.parents);
    for (const reference of referencesIn(node.data)) {
      if (node.type === 'Loop' && reference.node === LOOP_ITEM && reference.field.startsWith('body')) continue;
      const field = `nodes[${index}].data.${reference.field}`;
      const target = byId.get(reference.node);
      if (!target) issues.push({ nodeId: node.id, field, message: `{{${reference.node}.${reference.output}}} names no node of the flow` });
      else if (!graph.cycle && !ancestors.has(reference.node))
        issues.push({ nodeId: node.id, field, message: `{{${reference.node}.${reference.output}}} names a node that is not upstream of ${node.id}` });
      else {
        const outputs = componentOf(target.type)?.outputs;
        if (outputs && !outputs.includes(reference.output))
          issues.push({ nodeId: node.id, field, message: `${target.type} ${reference.node} has no output ${reference.output} (it has ${outputs.join(', ')})` });
      }
    }
  });
  return issues;
}

export function assertValidFlow(flow: Flow): void {
  const issues = validateFlow(flow);
  if (issues.length) {
    throw badRequest(`The workflow is invalid: ${issues[0].nodeId ? `node ${issues[0].nodeId}, ` : ''}${issues[0].field}: ${issues[0].message}`, {
      issues: issues.map((issue) => ({ path: `body.flow.${issue.field}`, nodeId: issue.nodeId, message: issue.message, code: 'invalid_flow' })),
    });
  }
}

function pluck(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>((current, key) => (current && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined), value);
}

/**
 * Resolves `{{node.field}}` from upstream outputs. A value that is one whole reference keeps the
 * referenced value's type; references inside text are written as text (JSON for non-strings).
 * References to unknown nodes (a Loop's `{{item}}`) are left for their owner.
 */
export function resolveTemplates(value: unknown, outputs: Record<string, Record<string, unknown>>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole && outputs[whole[1]]) return pluck(outputs[whole[1]], [whole[2], ...whole[3].split('.').filter(Boolean)]) ?? null;
    return value.replace(TEMPLATE, (match, node: string, field: string, rest: string) => {
      if (!outputs[node]) return match;
      const found = pluck(outputs[node], [field, ...rest.split('.').filter(Boolean)]);
      return typeof found === 'string' ? found : JSON.stringify(found ?? null);
    });
  }
  if (Array.isArray(value)) return value.map((entry) => resolveTemplates(entry, outputs));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, resolveTemplates(entry, outputs)]));
  return value;
}

/** `simple` up to 4 nodes, `intermediate` up to 10, `advanced` beyond (or any Loop/Parallel). */
export function complexityOf(flow: Flow): 'simple' | 'intermediate' | 'advanced' {
  if (flow.nodes.length > 10 || flow.nodes.some((node) => node.type === 'Loop' || node.type === 'Parallel')) return 'advanced';
  return flow.nodes.length <= 4 ? 'simple' : 'intermediate';
}
