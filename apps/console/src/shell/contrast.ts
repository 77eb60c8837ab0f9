/** WCAG 2 relative luminance of a `#rrggbb` color. */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** `hex` scaled toward black by `factor` (0 = unchanged). */
function darker(hex: string, factor: number): string {
  return `#${[1, 3, 5]
    .map((i) =>
      Math.round(parseInt(hex.slice(i, i + 2), 16) * (1 - factor))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/**
 * The color itself when it reads at `ratio` against `background`, else the first darker step that
 * does: text and filled backgrounds meet WCAG AA whatever palette shade a component picks.
 */
export function readable(hex: string, background = '#ffffff', ratio = 4.8): string {
  for (let factor = 0; factor < 1; factor += 0.04) {
    const candidate = darker(hex, factor);
    if (contrast(candidate, background) >= ratio) return candidate;
  }
  return '#000000';
}
