import type { workflowEngine } from '@platform/contracts';

type Flow = workflowEngine.Flow;
type FlowNode = workflowEngine.FlowNode;
type FlowEdge = workflowEngine.FlowEdge;

/** What a canvas node carries: the engine node's type, parameters and retry policy, untouched. */
export interface ComponentNodeData extends Record<string, unknown> {
  component: string;
  params: Record<string, unknown>;
  retry?: FlowNode['retry'];
}

/** The canvas node (the shape `@xyflow/react` draws) of one engine node. */
export interface CanvasNode {
  id: string;
  type: 'component';
  position: { x: number; y: number };
  data: ComponentNodeData;
}

/** The canvas edge of one engine edge; `flowId` remembers whether the flow named the edge itself. */
export interface CanvasEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle: 'true' | 'false' | null;
  data: { flowId?: string };
}

/** A stable id for an edge the flow left unnamed: the canvas needs one, the flow does not get it back. */
export const edgeKey = (edge: { source: string; target: string; sourceHandle?: string | null }) =>
  `${edge.source}->${edge.target}${edge.sourceHandle ? `:${edge.sourceHandle}` : ''}`;

/** The engine's flow as canvas nodes and edges, positions as stored. */
export function flowToCanvas(flow: Flow): { nodes: CanvasNode[]; edges: CanvasEdge[] } {
  const nodes = flow.nodes.map((node) => ({
    id: node.id,
    type: 'component' as const,
    position: { x: node.position.x, y: node.position.y },
    data: { component: node.type, params: structuredClone(node.data), ...(node.retry && { retry: { ...node.retry } }) },
  }));
  const edges = flow.edges.map((edge) => ({
    id: edge.id ?? edgeKey(edge),
    source: edge.source,
    target: edge.target,
    sourceHandle: edge.sourceHandle ?? null,
    data: edge.id === undefined ? {} : { flowId: edge.id },
  }));
  return { nodes, edges };
}

/** Canvas nodes and edges back as the engine's flow: the exact inverse of `flowToCanvas`. */
export function canvasToFlow(
  nodes: ReadonlyArray<{ id: string; position: { x: number; y: number }; data: ComponentNodeData }>,
  edges: ReadonlyArray<{ id: string; source: string; target: string; sourceHandle?: string | null; data?: { flowId?: string } }>,
): Flow {
  return {
    nodes: nodes.map((node) => ({
      id: node.id,
      type: node.data.component,
      position: { x: node.position.x, y: node.position.y },
      data: structuredClone(node.data.params),
      ...(node.data.retry && { retry: { ...node.data.retry } }),
    })),
    edges: edges.map((edge): FlowEdge => {
      const handle = edge.sourceHandle === 'true' || edge.sourceHandle === 'false' ? edge.sourceHandle : undefined;
      return {
        ...(edge.data?.flowId !== undefined && { id: edge.data.flowId }),
        source: edge.source,
        target: edge.target,
        ...(handle && { sourceHandle: handle }),
      };
    }),
  };
}

/** A node id for a new node of `component` that no node of the flow has yet: `merge1`, `merge2`, ... */
export function nextNodeId(component: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const base =
    component
      .replace(/[^A-Za-z0-9]/g, '')
      .replace(/^[^A-Za-z]+/, '')
      .toLowerCase() || 'node';
  for (let n = 1; ; n++) if (!used.has(`${base}${n}`)) return `${base}${n}`;
}

/** The id a node may be renamed to: the engine's node id rule, and not another node's. */
export function nodeIdProblem(id: string, others: Iterable<string>): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(id)) return 'Letters, digits, _ and -, starting with a letter, at most 64';
  for (const other of others) if (other === id) return `Another node is already called ${id}`;
  return undefined;
}
