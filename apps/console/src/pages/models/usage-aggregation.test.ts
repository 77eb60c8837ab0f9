import { aggregateUsage, daysBetween, lastDays } from './usage-aggregation';

const call = (at: string, model: string, promptTokens: number, completionTokens: number, cost: number) => ({ at, model, promptTokens, completionTokens, cost });

describe('aggregateUsage', () => {
  const records = [
    call('2026-11-25T08:00:00.000Z', 'llama3.2:latest', 10, 20, 0.1),
    call('2026-11-25T23:59:59.999Z', 'llama3.2:latest', 5, 5, 0.2),
    call('2026-11-27T00:00:00.000Z', 'llama3.2:latest', 1, 1, 0.05),
    call('2026-11-27T12:00:00.000+02:00', 'tiny.gguf', 100, 0, 0),
    call('2026-11-20T12:00:00.000Z', 'llama3.2:latest', 1000, 1000, 9),
  ];

  it('sums calls, tokens and cost per model, most expensive first', () => {
    const { byModel, models } = aggregateUsage(records, '2026-11-25', '2026-11-27');
    expect(models).toEqual(['llama3.2:latest', 'tiny.gguf']);
    expect(byModel).toEqual([
      { model: 'llama3.2:latest', calls: 3, promptTokens: 16, completionTokens: 26, cost: 0.35 },
      { model: 'tiny.gguf', calls: 1, promptTokens: 100, completionTokens: 0, cost: 0 },
    ]);
  });

  it('buckets by UTC day, every day of the period present', () => {
    const { costByDay, tokensByDay } = aggregateUsage(records, '2026-11-25', '2026-11-27');
    expect(costByDay).toEqual([
      { day: '2026-11-25', 'llama3.2:latest': 0.3, 'tiny.gguf': 0 },
      { day: '2026-11-26', 'llama3.2:latest': 0, 'tiny.gguf': 0 },
      { day: '2026-11-27', 'llama3.2:latest': 0.05, 'tiny.gguf': 0 },
    ]);
    // 12:00 at +02:00 is 10:00 UTC, the same day.
    expect(tokensByDay[2]).toEqual({ day: '2026-11-27', 'llama3.2:latest': 2, 'tiny.gguf': 100 });
  });

  it('gives empty series with the days when nothing was called', () => {
    expect(aggregateUsage([], '2026-02-27', '2026-03-01')).toEqual({
      models: [],
      byModel: [],
      costByDay: [{ day: '2026-02-27' }, { day: '2026-02-28' }, { day: '2026-03-01' }],
      tokensByDay: [{ day: '2026-02-27' }, { day: '2026-02-28' }, { day: '2026-03-01' }],
    });
  });

  it('orders models of equal cost by tokens, then name', () => {
    const { models } = aggregateUsage(
      [call('2026-01-01T00:00:00Z', 'b', 1, 0, 0), call('2026-01-01T00:00:00Z', 'a', 1, 0, 0), call('2026-01-01T00:00:00Z', 'c', 5, 0, 0)],
      '2026-01-01',
      '2026-01-01',
    );
    expect(models).toEqual(['c', 'a', 'b']);
  });
});

describe('periods', () => {
  it('lists the days of a period across a month and a leap day', () => {
    expect(daysBetween('2028-02-28', '2028-03-01')).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
    expect(daysBetween('2026-01-02', '2026-01-01')).toEqual([]);
    expect(daysBetween('2020-01-01', '2030-01-01')).toHaveLength(366);
  });

  it('takes the last days up to now, the end exclusive for the API', () => {
    expect(lastDays(7, new Date('2026-11-27T23:30:00Z'))).toEqual({
      from: '2026-11-21',
      to: '2026-11-27',
      fromIso: '2026-11-21T00:00:00.000Z',
      toIso: '2026-11-28T00:00:00.000Z',
    });
  });
});
