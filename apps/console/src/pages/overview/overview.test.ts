import { failedSince, startOfUtcDay } from './counts';
import { readinessFrom } from './readiness';

describe('Overview figures', () => {
  it("counts today's spans from the start of the UTC day", () => {
    expect(startOfUtcDay(new Date('2026-11-27T23:59:59.999Z'))).toBe('2026-11-27T00:00:00Z');
  });

  it('counts only the failures that started within the hour', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    const executions = [
      { status: 'failed', startedAt: '2026-11-27T11:30:00Z' },
      { status: 'failed', startedAt: '2026-11-27T10:59:59Z' },
      { status: 'completed', startedAt: '2026-11-27T11:50:00Z' },
      { status: 'failed', startedAt: '2026-11-27T11:00:00Z' },
    ];
    expect(failedSince(executions, now - 3_600_000)).toBe(2);
  });
});

describe('readinessFrom', () => {
  const health = (status: string, dependencies: Record<string, string>) => JSON.stringify({ status, version: '1', uptime: 3, dependencies });

  it('is ready on a 200 with its checks', () => {
    expect(readinessFrom('auth', 200, health('healthy', { postgres: 'up', redis: 'up' }))).toEqual({
      service: 'auth',
      ready: true,
      checks: { postgres: 'up', redis: 'up' },
    });
  });

  it("reads a 503's checks to say what is down", () => {
    expect(readinessFrom('workers', 503, health('unhealthy', { postgres: 'up', redis: 'down' }))).toEqual({
      service: 'workers',
      ready: false,
      checks: { postgres: 'up', redis: 'down' },
      problem: 'answered 503',
    });
  });

  it("shows the gateway's refusal when the service cannot be reached", () => {
    const body = JSON.stringify({ error: { type: 'api_error', code: 'dependency_unavailable', message: 'mesh is unavailable; try again shortly' }, requestId: 'r' });
    expect(readinessFrom('mesh', 503, body)).toEqual({ service: 'mesh', ready: false, checks: {}, problem: '503: mesh is unavailable; try again shortly' });
  });
});
