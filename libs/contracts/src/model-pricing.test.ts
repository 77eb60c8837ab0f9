import { PriceTable, Pricing } from './model-pricing';

describe('model price table', () => {
  it('reads one price for both directions or {input, output}, and rejects anything else', () => {
    expect(PriceTable.parse('{"a": 1, "b": {"input": 0.5, "output": 2}}')).toEqual({ a: { input: 1, output: 1 }, b: { input: 0.5, output: 2 } });
    expect(PriceTable.parse(undefined)).toEqual({});
    expect(PriceTable.safeParse('not json').success).toBe(false);
    expect(PriceTable.safeParse('{"a": -1}').success).toBe(false);
  });

  it('prices by exact name, then without :latest; embedded and unknown models cost 0', () => {
    const pricing = new Pricing(PriceTable.parse('{"llama3": {"input": 1, "output": 2}}'));
    expect(pricing.cost('llama3:latest', 'ollama', 1000, 500)).toBe(2);
    expect(pricing.cost('llama3', 'embedded', 1000, 500)).toBe(0);
    expect(pricing.cost('other', 'remote', 1000, 500)).toBe(0);
    expect(pricing.has('llama3:latest')).toBe(true);
    expect(pricing.has('other')).toBe(false);
  });
});
