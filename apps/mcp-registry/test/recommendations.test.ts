import { recommend } from '../src/load-balancing/load-balancing.service';

const connection = (id: string, load: number, extra: Partial<Parameters<typeof recommend>[0][number]> = {}) => ({
  id,
  name: id,
  capabilityNames: ['search'],
  load,
  activeRequests: Math.round(load * 10),
  capacity: 10,
  requestsPerMinute: 0,
  status: 'active',
  healthStatus: 'healthy',
  ...extra,
});

describe('load recommendations', () => {
  it('rebalances a hot connection towards cooler peers with the same capabilities', () => {
    const result = recommend([connection('hot', 0.9), connection('cool', 0.1), connection('other', 0, { capabilityNames: ['files'] })]);
    expect(result).toEqual([{ action: 'rebalance', reason: expect.stringContaining('90%'), suggestedConnections: ['cool'] }]);
  });

  it('asks to scale up when no peer has room', () => {
    const result = recommend([connection('hot', 1), connection('also-hot', 0.85)]);
    expect(result.map((r) => r.action)).toEqual(['scale-up', 'scale-up']);
  });

  it('flags failing connections and idle ones whose peers carry the traffic', () => {
    const result = recommend([
      connection('busy', 0.3, { requestsPerMinute: 40 }),
      connection('unused', 0),
      connection('broken', 0, { status: 'error', healthStatus: 'error' }),
    ]);
    expect(result).toEqual([
      { action: 'investigate', reason: expect.any(String), suggestedConnections: ['broken'] },
      { action: 'scale-down', reason: expect.stringContaining('40'), suggestedConnections: ['unused'] },
    ]);
  });

  it('has nothing to say about a balanced registry', () => {
    expect(recommend([connection('a', 0.4, { requestsPerMinute: 5 }), connection('b', 0.5, { requestsPerMinute: 6 })])).toEqual([]);
  });
});
