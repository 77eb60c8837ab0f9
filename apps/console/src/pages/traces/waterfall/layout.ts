import type { tracing } from '@platform/contracts';

type Span = tracing.Span;

/** One row of the waterfall: a span in tree order, placed on the trace's time axis. */
export interface WaterfallRow {
  span: Span;
  /** Index of the row, in tree order. */
  index: number;
  depth: number;
  /** Start of the bar, as a fraction (0–1) of the trace's time range. */
  offset: number;
  /** Length of the bar, as a fraction (0–1) of the trace's time range. */
  width: number;
  /** Start and duration in ms from the trace's first start, as recorded (not clamped). */
  startMs: number;
  durationMs: number;
  /** `service.name` of the span's resource, else its project. */
  service: string;
  error: boolean;
  /** Its parent is not in the trace: drawn at the root. */
  orphan: boolean;
  /** It took part in a parent cycle, which was cut here. */
  cycle: boolean;
  /** It started before or ended after its parent (clock skew): the bar is drawn inside the parent's. */
  clamped: boolean;
  childCount: number;
}

export interface WaterfallLayout {
  rows: WaterfallRow[];
  /** ms between the first start and the last end of the trace. */
  durationMs: number;
  /** The trace's first start, ns since the epoch (decimal string). */
  startUnixNano: string;
  /** Every service, in order of first appearance in tree order. */
  services: string[];
}

interface Node {
  span: Span;
  start: number;
  end: number;
  children: Node[];
  parent: Node | null;
  orphan: boolean;
}

export function serviceOf(span: Span): string {
  const name = span.resource?.attributes?.['service.name'];
  return typeof name === 'string' && name ? name : span.project;
}

const byStart = (a: Node, b: Node) => a.start - b.start || a.end - b.end || (a.span.span_id < b.span.span_id ? -1 : a.span.span_id > b.span.span_id ? 1 : 0);

/**
 * Lays a trace's spans out as a waterfall: depth-first tree order from the parent ids (children by
 * start time), spans whose parent is missing at the root, parent cycles cut at their earliest span,
 * and each bar's offset and width relative to the whole trace, a child clamped into its parent's bar.
 * Iterative throughout, so a chain of 10,000 spans does not overflow the stack.
 */
export function layoutWaterfall(spans: readonly Span[]): WaterfallLayout {
  if (spans.length === 0) return { rows: [], durationMs: 0, startUnixNano: '0', services: [] };

  // Times as ms relative to the first start: ns since the epoch do not fit a double exactly.
  let first = BigInt(spans[0].start_time_unix_nano);
  for (const span of spans) {
    const start = BigInt(span.start_time_unix_nano);
    if (start < first) first = start;
  }
  const nodes = new Map<string, Node>();
  let last = 0;
  for (const span of spans) {
    if (nodes.has(span.span_id)) continue; // a span sent twice is drawn once
    const start = Number(BigInt(span.start_time_unix_nano) - first) / 1e6;
    const end = Math.max(start, Number(BigInt(span.end_time_unix_nano) - first) / 1e6);
    if (end > last) last = end;
    nodes.set(span.span_id, { span, start, end, children: [], parent: null, orphan: false });
  }

  const roots: Node[] = [];
  for (const node of nodes.values()) {
    const parentId = node.span.parent_span_id;
    const parent = parentId ? nodes.get(parentId) : undefined;
    if (parent && parent !== node) {
      node.parent = parent;
      parent.children.push(node);
    } else if (parent !== node) {
      // A parent that is not stored makes an orphan; a span naming itself its parent is left to the cycles.
      node.orphan = Boolean(parentId);
      roots.push(node);
    }
  }
  for (const node of nodes.values()) if (node.children.length > 1) node.children.sort(byStart);
  roots.sort(byStart);

  const total = last;
  const rows: WaterfallRow[] = [];
  const services: string[] = [];
  const seenServices = new Set<string>();
  const visited = new Set<Node>();

  const walk = (root: Node, cycle: boolean) => {
    // Each stack entry carries the window its bar must stay inside (the parent's drawn bar).
    const stack: Array<{ node: Node; depth: number; lo: number; hi: number; cycle: boolean }> = [{ node: root, depth: 0, lo: 0, hi: total, cycle }];
    while (stack.length) {
      const { node, depth, lo, hi, cycle: cut } = stack.pop()!;
      if (visited.has(node)) continue;
      visited.add(node);
      const start = Math.min(Math.max(node.start, lo), hi);
      const end = Math.min(Math.max(node.end, start), hi);
      const clamped = depth > 0 && (node.start < lo || node.end > hi);
      const service = serviceOf(node.span);
      if (!seenServices.has(service)) {
        seenServices.add(service);
        services.push(service);
      }
      rows.push({
        span: node.span,
        index: rows.length,
        depth,
        offset: total > 0 ? start / total : 0,
        width: total > 0 ? (end - start) / total : 0,
        startMs: node.start,
        durationMs: node.end - node.start,
        service,
        error: node.span.status?.code === 'ERROR',
        orphan: node.orphan,
        cycle: cut,
        clamped,
        childCount: node.children.length,
      });
      for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i], depth: depth + 1, lo: start, hi: end, cycle: false });
    }
  };

  for (const root of roots) walk(root, false);
  if (visited.size < nodes.size) {
    // What no root reaches hangs off a parent cycle: cut each cycle at its earliest span.
    const rest = [...nodes.values()].filter((node) => !visited.has(node)).sort(byStart);
    for (const node of rest) {
      if (visited.has(node)) continue;
      // Climb to the cycle itself, so the cut span is one of the cycle's and its descendants follow it.
      const path = new Set<Node>();
      let top = node;
      while (top.parent && !path.has(top)) {
        path.add(top);
        top = top.parent;
      }
      const ring = [...path].filter((member) => member === top || isOnRing(member, top));
      const cut = ring.sort(byStart)[0] ?? top;
      walk(cut, true);
    }
  }

  return { rows, durationMs: total, startUnixNano: first.toString(), services };
}

/** Whether `node` lies on the parent ring that passes through `onRing`. */
function isOnRing(node: Node, onRing: Node): boolean {
  let current = onRing.parent;
  while (current && current !== onRing) {
    if (current === node) return true;
    current = current.parent;
  }
  return false;
}

/** The spans of the tracing service's trace tree, flattened (iteratively: deep traces are fine). */
export function flattenTree(roots: readonly tracing.SpanNode[]): Span[] {
  const out: Span[] = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    const { children, ...span } = node;
    out.push(span);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}
