import { collectSections, type ConsoleSection } from './sections';

/** Every `src/pages/<id>/index.ts`: each section registers itself by existing. */
export const sections: ConsoleSection[] = collectSections(import.meta.glob<{ default: ConsoleSection }>('../pages/*/index.ts', { eager: true }));
