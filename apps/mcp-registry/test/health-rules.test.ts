import { appendRecent, healthAfter, RECENT_WINDOW, statusAfter } from '../src/health-checks/health-rules';

describe('health rules', () => {
  const fast = { ok: true, responseTime: 100, timeoutMs: 5000 };

  it('is healthy when the check answered fast and recent checks passed', () => {
    expect(healthAfter(fast, [true, true], 0.5)).toBe('healthy');
  });

  it('is degraded when slow or when a recent check failed, error when the check failed', () => {
    expect(healthAfter({ ...fast, responseTime: 2600 }, [true], 0.5)).toBe('degraded');
    expect(healthAfter(fast, [false, true], 0.5)).toBe('degraded');
    expect(healthAfter({ ...fast, ok: false }, [true], 0.5)).toBe('error');
  });

  it('keeps a window of the latest outcomes, so an old failure stops counting', () => {
    let recent = appendRecent([], false);
    for (let i = 0; i < RECENT_WINDOW - 1; i += 1) recent = appendRecent(recent, true);
    expect(healthAfter(fast, recent, 0.5)).toBe('degraded');
    recent = appendRecent(recent, true);
    expect(recent).toHaveLength(RECENT_WINDOW);
    expect(healthAfter(fast, recent, 0.5)).toBe('healthy');
  });

  it('moves active to error and back, and leaves operator states alone', () => {
    expect(statusAfter('active', false)).toBe('error');
    expect(statusAfter('error', true)).toBe('active');
    expect(statusAfter('idle', false)).toBe('idle');
    expect(statusAfter('active', true)).toBe('active');
  });
});
