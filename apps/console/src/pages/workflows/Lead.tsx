import { Text } from '@mantine/core';
import type { CSSProperties, ReactNode } from 'react';

/** Explanatory text under a title or in an empty table, dark enough to read (WCAG AA on white). */
export function Lead({ children }: { children: ReactNode }) {
  return (
    <Text span inherit c="gray.7">
      {children}
    </Text>
  );
}

/** Mantine's error colour (red 6) is too light for text on white: inputs and messages inside take red 9. */
export const READABLE_ERRORS = { '--mantine-color-error': 'var(--mantine-color-red-9)' } as CSSProperties;
