import { axisTicks, formatDuration } from './axis';
import { serviceColors, SERVICE_PALETTE } from './service-colors';

describe('waterfall axis', () => {
  it('ticks at round steps across the trace', () => {
    expect(axisTicks(1000).map((tick) => tick.label)).toEqual(['0 ms', '200 ms', '400 ms', '600 ms', '800 ms', '1 s']);
    expect(axisTicks(1000).map((tick) => tick.fraction)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(axisTicks(37).map((tick) => tick.ms)).toEqual([0, 10, 20, 30]);
    expect(axisTicks(0.5).map((tick) => tick.label)).toEqual(['0 ms', '100 µs', '200 µs', '300 µs', '400 µs', '500 µs']);
  });

  it('has one tick for an empty trace', () => {
    expect(axisTicks(0)).toEqual([{ ms: 0, fraction: 0, label: '0 ms' }]);
  });

  it('formats durations for people', () => {
    expect([0, 0.0123, 4.5678, 999, 1500, 61_500].map(formatDuration)).toEqual(['0 ms', '12.3 µs', '4.57 ms', '999 ms', '1.5 s', '1 min 1.5 s']);
  });
});

describe('service colours', () => {
  it('gives each service of a trace its own colour, in order, repeating past the palette', () => {
    const services = Array.from({ length: SERVICE_PALETTE.length + 1 }, (_, i) => `svc-${i}`);
    const colors = serviceColors(services);
    expect(colors.get('svc-0')).toBe('blue');
    expect(new Set(services.slice(0, SERVICE_PALETTE.length).map((s) => colors.get(s))).size).toBe(SERVICE_PALETTE.length);
    expect(colors.get(`svc-${SERVICE_PALETTE.length}`)).toBe('blue');
  });
});
