import type * as LlamaCpp from 'node-llama-cpp';
import vm from 'node:vm';

export type LlamaCppModule = typeof LlamaCpp;

/**
 * node-llama-cpp is ESM-only and this service is CommonJS. A `Function`-built `import()` is left
 * alone by the TypeScript, swc and esbuild transforms (which would turn a plain `import()` into
 * `require()`), so Node loads the package as the ES module it is.
 */
const nativeImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

/**
 * Inside a sandbox without a dynamic-import hook (jest runs modules in `vm` contexts), the same
 * `import()` is compiled in the main context with Node's own loader, so the native module is
 * loaded once per process instead of once per sandbox.
 */
function mainContextImport(specifier: string): Promise<unknown> {
  const loader = (vm.constants as unknown as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (!loader) return Promise.reject(new Error('node-llama-cpp cannot be imported here: this Node has no vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER'));
  const importer = vm.runInThisContext('(specifier) => import(specifier)', { importModuleDynamically: loader as never }) as (
    specifier: string,
  ) => Promise<unknown>;
  return importer(specifier);
}

async function importModule(specifier: string): Promise<unknown> {
  try {
    return await nativeImport(specifier);
  } catch (error) {
    if (!String((error as NodeJS.ErrnoException).code ?? '').startsWith('ERR_VM_DYNAMIC_IMPORT')) throw error;
    return mainContextImport(specifier);
  }
}

let imported: Promise<LlamaCppModule> | undefined;

/** The node-llama-cpp module, imported once. */
export function loadLlamaCpp(): Promise<LlamaCppModule> {
  imported ??= (importModule('node-llama-cpp') as Promise<LlamaCppModule>).catch((error: unknown) => {
    imported = undefined;
    throw error;
  });
  return imported;
}
