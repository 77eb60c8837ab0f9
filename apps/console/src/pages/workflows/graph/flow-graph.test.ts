import { workflowEngine } from '@platform/contracts';
import { canvasToFlow, edgeKey, flowToCanvas, nextNodeId, nodeIdProblem } from './flow-graph';

const flow: workflowEngine.Flow = {
  nodes: [
    { id: 'start', type: 'Merge', position: { x: -12.5, y: 40.25 }, data: { inputs: [1, { deep: ['x'] }], mode: 'array' } },
    {
      id: 'check',
      type: 'Condition',
      position: { x: 260, y: 0 },
      data: { condition: 'value > 1', input: '{{start.merged}}' },
      retry: { enabled: true, maxAttempts: 4, backoff: 'exponential', initialDelay: 250 },
    },
    { id: 'yes', type: 'LLMNode', position: { x: 520, y: -80 }, data: { prompt: 'ok {{start.merged}}' } },
    { id: 'no', type: 'Merge', position: { x: 520, y: 80 }, data: {} },
  ],
  edges: [
    { source: 'start', target: 'check' },
    { id: 'named', source: 'check', target: 'yes', sourceHandle: 'true' },
    { source: 'check', target: 'no', sourceHandle: 'false' },
  ],
};

describe('graph ↔ workflow conversion', () => {
  it('round-trips a flow exactly: positions, data, retry, edge ids and handles', () => {
    const canvas = flowToCanvas(flow);
    expect(canvasToFlow(canvas.nodes, canvas.edges)).toEqual(flow);
    // And what comes back is still what the engine's own contract parses to the same flow.
    expect(workflowEngine.Flow.parse(canvasToFlow(canvas.nodes, canvas.edges))).toEqual(flow);
  });

  it('gives the canvas what it draws: component nodes, unique edge ids, the Condition branch as handle', () => {
    const { nodes, edges } = flowToCanvas(flow);
    expect(nodes[1]).toEqual({
      id: 'check',
      type: 'component',
      position: { x: 260, y: 0 },
      data: { component: 'Condition', params: { condition: 'value > 1', input: '{{start.merged}}' }, retry: flow.nodes[1].retry },
    });
    expect(edges.map((edge) => edge.id)).toEqual(['start->check', 'named', 'check->no:false']);
    expect(edges.map((edge) => edge.sourceHandle)).toEqual([null, 'true', 'false']);
    expect(new Set(edges.map((edge) => edge.id)).size).toBe(edges.length);
  });

  it('does not share data between the flow and the canvas', () => {
    const { nodes } = flowToCanvas(flow);
    (nodes[0].data.params.inputs as unknown[]).push('changed');
    expect(flow.nodes[0].data.inputs).toEqual([1, { deep: ['x'] }]);
  });

  it('keeps moves and new connections made on the canvas; handles other than a branch are not sent', () => {
    const { nodes, edges } = flowToCanvas(flow);
    const moved = nodes.map((node) => (node.id === 'yes' ? { ...node, position: { x: 600, y: -100 } } : node));
    const added = [
      ...edges,
      { id: 'xy', source: 'yes', target: 'no', sourceHandle: null, data: {} },
      { id: 'h', source: 'start', target: 'no', sourceHandle: 'out', data: {} },
    ];
    const back = canvasToFlow(moved, added);
    expect(back.nodes[2].position).toEqual({ x: 600, y: -100 });
    expect(back.edges.slice(3)).toEqual([
      { source: 'yes', target: 'no' },
      { source: 'start', target: 'no' },
    ]);
  });

  it('names edges and new nodes predictably', () => {
    expect(edgeKey({ source: 'a', target: 'b' })).toBe('a->b');
    expect(nextNodeId('LLMNode', ['llmnode1', 'llmnode2'])).toBe('llmnode3');
    expect(nextNodeId('MCPToolCall', [])).toBe('mcptoolcall1');
    expect(nodeIdProblem('fetch-2', ['a'])).toBeUndefined();
    expect(nodeIdProblem('2fetch', [])).toMatch(/starting with a letter/);
    expect(nodeIdProblem('a', ['a'])).toBe('Another node is already called a');
  });
});
