import { createTheme, DEFAULT_THEME, type CSSVariablesResolver } from '@mantine/core';
import { readable } from './contrast';

/**
 * Mantine's defaults put white on shade 6, colored text in shade 6 and dimmed text in gray 6, under
 * WCAG AA's 4.5:1 for several colors: the console darkens each color's filled, light and text
 * shades until they read, and uses a darker dimmed gray.
 */
export const theme = createTheme({ primaryShade: { light: 8, dark: 8 } });

const COLORS = Object.keys(DEFAULT_THEME.colors);

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': t.colors.gray[7],
    '--mantine-color-placeholder': t.colors.gray[7],
    ...Object.fromEntries(
      COLORS.flatMap((color) => {
        const strong = readable(t.colors[color][8]);
        return [
          [`--mantine-color-${color}-filled`, strong],
          [`--mantine-color-${color}-filled-hover`, readable(t.colors[color][9], '#ffffff', 5.5)],
          // A light variant (an alert, a badge) sits on the color's palest tints: text is checked against shade 1, the darker of them.
          [`--mantine-color-${color}-light-color`, readable(t.colors[color][9], t.colors[color][1])],
          [`--mantine-color-${color}-text`, readable(t.colors[color][9])],
          [`--mantine-color-${color}-outline`, strong],
        ];
      }),
    ),
  },
  dark: {},
});
