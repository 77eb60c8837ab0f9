import { collectSections, sectionRoutes, type ConsoleSection } from './sections';

const section = (id: string, order: number, extra: Partial<ConsoleSection> = {}): ConsoleSection => ({
  id,
  label: id[0].toUpperCase() + id.slice(1),
  order,
  routes: [{ index: true }],
  ...extra,
});

describe('sections', () => {
  it('orders the sections found by the glob by their order, then label', () => {
    const sections = collectSections({
      '../pages/admin/index.ts': { default: section('admin', 1000) },
      '../pages/traces/index.ts': { default: section('traces', 30) },
      '../pages/agents/index.ts': { default: section('agents', 30) },
      '../pages/overview/index.ts': { default: section('overview', 0, { path: '/' }) },
    });
    expect(sections.map((s) => s.id)).toEqual(['overview', 'agents', 'traces', 'admin']);
  });

  it('refuses a module without a section, a bad id, no routes, or a duplicate id, naming the file', () => {
    expect(() => collectSections({ '../pages/x/index.ts': {} })).toThrow('../pages/x/index.ts does not default-export');
    expect(() => collectSections({ '../pages/X/index.ts': { default: section('Bad Id', 1) } })).toThrow('must be lowercase');
    expect(() => collectSections({ '../pages/y/index.ts': { default: section('y', 1, { routes: [] }) } })).toThrow('has no routes');
    expect(() => collectSections({ '../pages/a/index.ts': { default: section('a', 1) }, '../pages/b/index.ts': { default: section('a', 2) } })).toThrow(
      'also used by ../pages/a/index.ts',
    );
  });

  it('mounts each section under /<id>, and a root section as a pathless layout', () => {
    const routes = sectionRoutes([section('overview', 0, { path: '/' }), section('runs', 20)]);
    expect(routes[0]).toEqual({ id: 'section:overview', children: [{ index: true }] });
    expect(routes[1]).toEqual({ id: 'section:runs', path: 'runs', children: [{ index: true }] });
  });
});
