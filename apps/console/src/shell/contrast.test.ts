import { contrast, readable } from './contrast';

describe('contrast', () => {
  it('measures as WCAG does', () => {
    expect(contrast('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('keeps a readable color and darkens one that is not until it reads at AA', () => {
    expect(readable('#1864ab')).toBe('#1864ab');
    const green = readable('#40c057');
    expect(contrast(green, '#ffffff')).toBeGreaterThanOrEqual(4.8);
    expect(green).not.toBe('#40c057');
  });
});
