import type { ReactNode } from 'react';
import type { RouteObject } from 'react-router';

/**
 * A section of the console: a folder `src/pages/<id>/` whose `index.ts` default-exports one of these.
 * The shell finds every section on its own (no shared routes file) and puts it in the sidebar.
 *
 * - `routes` are relative to `/<id>` (`{ index: true }` is `/<id>`, `{ path: ':name' }` is
 *   `/<id>/:name`); load page components with route `lazy` so each section is its own chunk:
 *   `{ index: true, lazy: () => import('./AgentsPage').then((m) => ({ Component: m.AgentsPage })) }`.
 * - `permission` (`<resource>:<action>`) hides the sidebar link from users without it; the pages
 *   stay reachable by URL and show the API's own refusal.
 * - `path` replaces `/<id>` as the section's root (the Overview's is `/`).
 */
export interface ConsoleSection {
  id: string;
  label: string;
  /** Place in the sidebar, lowest first (Overview 0, Admin 1000). */
  order: number;
  icon?: ReactNode;
  permission?: string;
  path?: string;
  routes: RouteObject[];
}

const SECTION_ID = /^[a-z][a-z0-9-]*$/;

/** The sections in sidebar order; throws on a malformed or duplicate one, naming its file. */
export function collectSections(modules: Record<string, { default?: ConsoleSection }>): ConsoleSection[] {
  const seen = new Map<string, string>();
  const sections: ConsoleSection[] = [];
  for (const [file, module] of Object.entries(modules)) {
    const section = module.default;
    if (!section || typeof section !== 'object') throw new Error(`${file} does not default-export a ConsoleSection`);
    if (!SECTION_ID.test(section.id)) throw new Error(`${file}: section id "${section.id}" must be lowercase letters, digits and dashes`);
    if (!Array.isArray(section.routes) || section.routes.length === 0) throw new Error(`${file}: section "${section.id}" has no routes`);
    const other = seen.get(section.id);
    if (other) throw new Error(`${file}: section id "${section.id}" is also used by ${other}`);
    seen.set(section.id, file);
    sections.push(section);
  }
  return sections.sort((a, b) => a.order - b.order || a.label.localeCompare(b.label));
}

/** Where a section's pages live: `/<id>`, or its own `path`. */
export function sectionPath(section: ConsoleSection): string {
  return section.path ?? `/${section.id}`;
}

/** The sections' routes under the signed-in layout. */
export function sectionRoutes(sections: readonly ConsoleSection[]): RouteObject[] {
  return sections.map((section) => {
    const path = sectionPath(section);
    // A section at the root is a pathless layout: its index route is `/`.
    return path === '/'
      ? { id: `section:${section.id}`, children: section.routes }
      : { id: `section:${section.id}`, path: path.replace(/^\//, ''), children: section.routes };
  });
}
