/**
 * Places a DAG's nodes in columns by dependency depth: a node's column is the longest path to it
 * from a node with no parents, so every edge points rightwards. Within a column nodes keep the
 * order of the first list, nudged towards their parents' rows (one barycentre pass) so edges cross
 * less. Nodes caught in a cycle (which a valid DAG has none of) go to a column after the rest.
 */
export interface LayoutOptions {
  columnWidth?: number;
  rowHeight?: number;
  origin?: { x: number; y: number };
}

export interface DepthLayout {
  depth: Map<string, number>;
  positions: Map<string, { x: number; y: number }>;
}

export function layoutByDepth(
  nodeIds: readonly string[],
  edges: ReadonlyArray<{ source: string; target: string }>,
  { columnWidth = 260, rowHeight = 110, origin = { x: 0, y: 0 } }: LayoutOptions = {},
): DepthLayout {
  const known = new Set(nodeIds);
  const parents = new Map<string, string[]>(nodeIds.map((id) => [id, []]));
  const children = new Map<string, string[]>(nodeIds.map((id) => [id, []]));
  for (const edge of edges) {
    if (!known.has(edge.source) || !known.has(edge.target) || edge.source === edge.target) continue;
    parents.get(edge.target)?.push(edge.source);
    children.get(edge.source)?.push(edge.target);
  }
  // Kahn's order; depth is settled once every parent has been.
  const depth = new Map<string, number>();
  const waiting = new Map(nodeIds.map((id) => [id, parents.get(id)?.length ?? 0]));
  const ready = nodeIds.filter((id) => waiting.get(id) === 0);
  for (const id of ready) depth.set(id, 0);
  while (ready.length) {
    const id = ready.shift() as string;
    for (const child of children.get(id) ?? []) {
      depth.set(child, Math.max(depth.get(child) ?? 0, (depth.get(id) ?? 0) + 1));
      const left = (waiting.get(child) ?? 0) - 1;
      waiting.set(child, left);
      if (left === 0) ready.push(child);
    }
  }
  const settled = nodeIds.filter((id) => waiting.get(id) === 0);
  const cyclicColumn = settled.length ? Math.max(...settled.map((id) => depth.get(id) ?? 0)) + 1 : 0;
  for (const id of nodeIds) if (waiting.get(id) !== 0) depth.set(id, cyclicColumn);

  const columns = new Map<number, string[]>();
  for (const id of nodeIds) {
    const column = depth.get(id) ?? 0;
    columns.set(column, [...(columns.get(column) ?? []), id]);
  }
  const row = new Map<string, number>();
  const positions = new Map<string, { x: number; y: number }>();
  for (const column of [...columns.keys()].sort((a, b) => a - b)) {
    const ids = columns.get(column) ?? [];
    const index = new Map(ids.map((id, i) => [id, i]));
    const weight = (id: string) => {
      const placed = (parents.get(id) ?? []).filter((parent) => row.has(parent));
      return placed.length ? placed.reduce((sum, parent) => sum + (row.get(parent) ?? 0), 0) / placed.length : (index.get(id) ?? 0);
    };
    const ordered = [...ids].sort((a, b) => weight(a) - weight(b) || (index.get(a) ?? 0) - (index.get(b) ?? 0));
    ordered.forEach((id, i) => {
      row.set(id, i);
      positions.set(id, { x: origin.x + column * columnWidth, y: origin.y + i * rowHeight });
    });
  }
  return { depth, positions };
}
