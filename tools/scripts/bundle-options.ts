import type { BuildOptions } from 'esbuild';
import path from 'node:path';

/**
 * How a service is bundled for production (build.ts), and so for benchmarks that measure what
 * runs in the image: CommonJS for Node 20, tsconfig path aliases (@platform/*) resolved, every
 * other bare import left a require().
 */
export function productionBundleOptions(root: string): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: path.join(root, 'tsconfig.base.json'),
    sourcemap: true,
    sourcesContent: false,
    keepNames: true,
    logLevel: 'warning',
    absWorkingDir: root,
    metafile: true,
  };
}
