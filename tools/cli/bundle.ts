/**
 * The CLI as one file that runs on Node 20 with nothing installed: `nx run cli:bundle` writes
 * dist/tools/cli/platform.js (every dependency inside; `ws`'s optional native helpers left out).
 */
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
export const BUNDLE = path.join(ROOT, 'dist/tools/cli/platform.js');

export async function bundleCli(outfile = BUNDLE): Promise<string> {
  await build({
    entryPoints: [path.join(__dirname, 'src/bin.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    tsconfig: path.join(__dirname, 'tsconfig.json'),
    external: ['bufferutil', 'utf-8-validate'],
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: '#!/usr/bin/env node' },
  });
  chmodSync(outfile, 0o755);
  return outfile;
}

if (require.main === module) {
  bundleCli().then(
    (file) => console.log(`bundled ${path.relative(ROOT, file)}`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
