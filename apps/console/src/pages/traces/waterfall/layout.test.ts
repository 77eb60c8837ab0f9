import { flattenTree, layoutWaterfall } from './layout';
import { span } from './test-spans';

const order = (spans: Parameters<typeof layoutWaterfall>[0]) => layoutWaterfall(spans).rows.map((row) => `${'  '.repeat(row.depth)}${row.span.span_id}`);

describe('waterfall layout', () => {
  it('puts spans in tree order from their parent ids, children by start time, with their depth', () => {
    const spans = [span('c', 'a', 30, 40), span('b', 'a', 10, 20), span('a', null, 0, 100), span('d', 'b', 12, 15), span('e', 'a', 20, 25)];
    expect(order(spans)).toEqual(['a', '  b', '    d', '  e', '  c']);
    const rows = layoutWaterfall(spans).rows;
    expect(rows.map((row) => row.index)).toEqual([0, 1, 2, 3, 4]);
    expect(rows.map((row) => row.childCount)).toEqual([3, 1, 0, 0, 0]);
  });

  it('places each bar by start and duration relative to the whole trace', () => {
    const layout = layoutWaterfall([span('a', null, 0, 200), span('b', 'a', 50, 150), span('c', 'b', 100, 150)]);
    expect(layout.durationMs).toBe(200);
    expect(layout.rows.map((row) => [row.span.span_id, row.offset, row.width])).toEqual([
      ['a', 0, 1],
      ['b', 0.25, 0.5],
      ['c', 0.5, 0.25],
    ]);
    expect(layout.rows[1]).toMatchObject({ startMs: 50, durationMs: 100, clamped: false });
  });

  it('keeps sub-millisecond precision of nanosecond times beyond 2^53', () => {
    const layout = layoutWaterfall([span('a', null, 0, 0.004), span('b', 'a', 0.001, 0.003)]);
    expect(layout.durationMs).toBeCloseTo(0.004, 9);
    expect(layout.rows[1].offset).toBeCloseTo(0.25, 9);
    expect(layout.rows[1].width).toBeCloseTo(0.5, 9);
  });

  it('draws spans whose parent is missing at the root, marked as orphans, among the roots by start', () => {
    const rows = layoutWaterfall([span('a', null, 10, 100), span('x', 'gone', 0, 5), span('y', 'x', 1, 2)]).rows;
    expect(rows.map((row) => [row.span.span_id, row.depth, row.orphan])).toEqual([
      ['x', 0, true],
      ['y', 1, false],
      ['a', 0, false],
    ]);
  });

  it('cuts a parent cycle at its earliest span and still draws every span once', () => {
    // a → b → c → a, with d hanging off c, and a span that is its own parent.
    const spans = [
      span('b', 'a', 20, 30),
      span('a', 'c', 10, 50),
      span('c', 'b', 25, 28),
      span('d', 'c', 26, 27),
      span('s', 's', 60, 70),
      span('r', null, 0, 5),
    ];
    const layout = layoutWaterfall(spans);
    expect(layout.rows).toHaveLength(spans.length);
    expect(order(spans)).toEqual(['r', 'a', '  b', '    c', '      d', 's']);
    expect(layout.rows.filter((row) => row.cycle).map((row) => row.span.span_id)).toEqual(['a', 's']);
  });

  it('clamps a clock-skewed child into its parent bar, keeping its recorded times', () => {
    // The child's host clock runs 30 ms ahead: it "starts" before and "ends" after its parent.
    const layout = layoutWaterfall([span('a', null, 0, 100), span('p', 'a', 40, 60), span('k', 'p', 20, 80), span('g', 'k', 70, 90)]);
    const byId = Object.fromEntries(layout.rows.map((row) => [row.span.span_id, row]));
    expect(byId.k).toMatchObject({ clamped: true, offset: 0.4, startMs: 20, durationMs: 60 });
    expect(byId.k.width).toBeCloseTo(0.2, 12);
    // Its own child is clamped into the clamped bar, never outside the parent's.
    expect(byId.g.clamped).toBe(true);
    expect(byId.g.offset).toBeCloseTo(0.6, 12);
    expect(byId.g.offset + byId.g.width).toBeLessThanOrEqual(byId.p.offset + byId.p.width + 1e-12);
    expect(byId.p.clamped).toBe(false);
  });

  it("names each span's service from its resource, else its project, in order of appearance", () => {
    const layout = layoutWaterfall([
      span('a', null, 0, 10, { service: 'gateway' }),
      span('b', 'a', 1, 5, { service: 'workflow-engine' }),
      span('c', 'b', 2, 3, { project: 'local-models' }),
      span('d', 'a', 6, 9, { service: 'gateway' }),
    ]);
    expect(layout.rows.map((row) => row.service)).toEqual(['gateway', 'workflow-engine', 'local-models', 'gateway']);
    expect(layout.services).toEqual(['gateway', 'workflow-engine', 'local-models']);
  });

  it('marks spans whose status is ERROR', () => {
    const rows = layoutWaterfall([span('a', null, 0, 10), span('b', 'a', 1, 2, { status: { code: 'ERROR', message: 'boom' } })]).rows;
    expect(rows.map((row) => row.error)).toEqual([false, true]);
  });

  it('handles an empty trace, a zero-length trace, a span sent twice and an end before its start', () => {
    expect(layoutWaterfall([])).toEqual({ rows: [], durationMs: 0, startUnixNano: '0', services: [] });
    const flat = layoutWaterfall([span('a', null, 5, 5), span('a', null, 5, 5)]);
    expect(flat.rows).toHaveLength(1);
    expect(flat.rows[0]).toMatchObject({ offset: 0, width: 0 });
    const backwards = layoutWaterfall([span('a', null, 0, 10), span('b', 'a', 8, 3)]).rows[1];
    expect(backwards).toMatchObject({ durationMs: 0, width: 0, offset: 0.8 });
  });

  it('lays out 10,000 spans, a wide tree and a deep chain, each in tree order with every span once', () => {
    // A wide trace: 99 server spans of 12 services with 100 children each, under one root.
    const wide = [span('root', null, 0, 10_000, { service: 'svc-0' })];
    for (let s = 0; s < 99; s++) {
      const id = `s${s}`;
      wide.push(span(id, 'root', s * 100, s * 100 + 99, { service: `svc-${s % 12}` }));
      for (let c = 0; c < 100; c++) wide.push(span(`${id}-${c}`, id, s * 100 + c, s * 100 + c + 1));
    }
    wide.reverse(); // the order spans arrive in says nothing
    const layout = layoutWaterfall(wide);
    expect(layout.rows).toHaveLength(10_000);
    expect(new Set(layout.rows.map((row) => row.span.span_id)).size).toBe(layout.rows.length);
    expect(layout.rows[0].span.span_id).toBe('root');
    expect(layout.rows[1].span.span_id).toBe('s0');
    expect(layout.rows[2].span.span_id).toBe('s0-0');
    expect(layout.rows.at(-1)!.span.span_id).toBe('s98-99');
    expect(layout.rows.at(-1)!.offset).toBeCloseTo(0.9899, 9);
    expect(layout.services).toHaveLength(13); // the 12 services and the children's project
    // Each row's parent comes before it, one level up.
    const position = new Map(layout.rows.map((row) => [row.span.span_id, row]));
    for (const row of layout.rows.slice(1)) {
      const parent = position.get(row.span.parent_span_id!)!;
      expect(parent.index < row.index && parent.depth === row.depth - 1).toBe(true);
    }

    // A chain 10,000 deep: no recursion to overflow.
    const chain = Array.from({ length: 10_000 }, (_, i) => span(`c${i}`, i ? `c${i - 1}` : null, i, 20_000 - i));
    const deep = layoutWaterfall(chain).rows;
    expect(deep).toHaveLength(10_000);
    expect(deep.at(-1)).toMatchObject({ depth: 9_999, clamped: false });
  });

  it("flattens the tracing service's trace tree depth first", () => {
    const tree = [
      {
        ...span('a', null, 0, 10),
        children: [
          { ...span('b', 'a', 1, 2), children: [{ ...span('c', 'b', 1, 2), children: [] }] },
          { ...span('d', 'a', 3, 4), children: [] },
        ],
      },
    ];
    expect(flattenTree(tree).map((s) => s.span_id)).toEqual(['a', 'b', 'c', 'd']);
    expect(flattenTree(tree)[0]).not.toHaveProperty('children');
  });
});
