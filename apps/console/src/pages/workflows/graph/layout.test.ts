import { layoutByDepth } from './layout';

const edges = (...pairs: string[]) => pairs.map((pair) => ({ source: pair[0], target: pair[1] }));

describe('auto-layout of a DAG by depth', () => {
  it('puts each node one column right of its deepest parent', () => {
    // a → b → d, a → c → d, a → d: d sits after the longest path (depth 2), not the shortest.
    const { depth, positions } = layoutByDepth(['a', 'b', 'c', 'd'], edges('ab', 'ac', 'bd', 'cd', 'ad'), { columnWidth: 100, rowHeight: 50 });
    expect(Object.fromEntries(depth)).toEqual({ a: 0, b: 1, c: 1, d: 2 });
    expect(positions.get('a')).toEqual({ x: 0, y: 0 });
    expect(positions.get('b')).toEqual({ x: 100, y: 0 });
    expect(positions.get('c')).toEqual({ x: 100, y: 50 });
    expect(positions.get('d')).toEqual({ x: 200, y: 0 });
  });

  it('makes every edge point rightwards and gives no two nodes the same place', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `n${i}`);
    const links = ids.slice(1).flatMap((id, i) => [
      { source: ids[Math.floor(i / 3)], target: id },
      { source: ids[i], target: id },
    ]);
    const { positions } = layoutByDepth(ids, links);
    for (const link of links) expect(positions.get(link.target)!.x).toBeGreaterThan(positions.get(link.source)!.x);
    expect(new Set([...positions.values()].map((p) => `${p.x},${p.y}`)).size).toBe(ids.length);
  });

  it('orders a column by its parents rows, so edges do not cross needlessly', () => {
    // Roots r1, r2; children listed in the opposite order of their parents.
    const { positions } = layoutByDepth(
      ['r1', 'r2', 'c2', 'c1'],
      [
        { source: 'r1', target: 'c1' },
        { source: 'r2', target: 'c2' },
      ],
    );
    expect(positions.get('c1')!.y).toBeLessThan(positions.get('c2')!.y);
  });

  it('keeps independent nodes in one column in their given order, and starts at the origin', () => {
    const { positions } = layoutByDepth(['x', 'y', 'z'], [], { origin: { x: 10, y: 20 }, rowHeight: 30 });
    expect([...positions.values()]).toEqual([
      { x: 10, y: 20 },
      { x: 10, y: 50 },
      { x: 10, y: 80 },
    ]);
  });

  it('survives a cycle and edges to unknown nodes: the cycle goes after the rest', () => {
    const { depth } = layoutByDepth(['a', 'b', 'c'], [...edges('ab', 'bc', 'cb'), { source: 'a', target: 'ghost' }]);
    expect(depth.get('a')).toBe(0);
    expect(depth.get('b')).toBe(1);
    expect(depth.get('c')).toBe(1);
    expect(depth.has('ghost')).toBe(false);
  });
});
