import type * as LlamaCpp from 'node-llama-cpp';

/**
 * node-llama-cpp is ESM-only and this service is CommonJS. A `Function`-built `import()` is left
 * alone by the TypeScript, swc and esbuild transforms (which would turn a plain `import()` into
 * `require()`), so Node loads the package as the ES module it is.
 */
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

let imported: Promise<typeof LlamaCpp> | undefined;

export type LlamaCppModule = typeof LlamaCpp;

/** The node-llama-cpp module, imported once. */
export function loadLlamaCpp(): Promise<LlamaCppModule> {
  imported ??= (importModule('node-llama-cpp') as Promise<LlamaCppModule>).catch((error: unknown) => {
    imported = undefined;
    throw error;
  });
  return imported;
}
