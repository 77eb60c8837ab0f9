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

describe('the theme', () => {
  it("gives every light variant's text AA contrast on the color's own tint (an orange refusal alert included)", async () => {
    const { DEFAULT_THEME } = await import('@mantine/core');
    const { cssVariablesResolver, theme } = await import('./theme');
    const light = cssVariablesResolver({ ...DEFAULT_THEME, ...theme, colors: DEFAULT_THEME.colors } as never).light;
    for (const [name, shades] of Object.entries(DEFAULT_THEME.colors)) {
      for (const background of [shades[0], shades[1], '#ffffff']) {
        expect([name, background, contrast(light[`--mantine-color-${name}-light-color`]!, background) >= 4.5]).toEqual([name, background, true]);
      }
    }
  });
});
