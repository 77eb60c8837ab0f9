/**
 * Bundles one app for production: `tsx tools/scripts/build.ts <app>` (or `nx run <app>:build`).
 *
 *   dist/apps/<app>/main.js     the service: apps/<app>/src/main.ts and the libraries it imports
 *                               (tsconfig path aliases resolved), CommonJS for Node 20
 *   dist/apps/<app>/migrate.js  tools/scripts/migrate.ts: applies the app's migrations
 *                               (`node dist/apps/<app>/migrate.js <app>`, the Helm migration job)
 *
 * Packages from node_modules stay external (`npm ci --omit=dev` provides them at run time), and so
 * does the generated Prisma client's runtime. Run from the workspace root after `prisma generate`.
 */
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { productionBundleOptions } from './bundle-options';

const root = path.resolve(__dirname, '../..');

async function main(app: string | undefined): Promise<void> {
  if (!app) throw new Error('usage: tsx tools/scripts/build.ts <app>');
  const entry = path.join(root, 'apps', app, 'src', 'main.ts');
  if (!existsSync(entry)) throw new Error(`apps/${app}/src/main.ts does not exist`);
  const outdir = path.join(root, 'dist', 'apps', app);
  rmSync(outdir, { recursive: true, force: true });

  const common = productionBundleOptions(root);
  const started = Date.now();
  const [service] = await Promise.all([
    build({ ...common, entryPoints: [entry], outfile: path.join(outdir, 'main.js') }),
    build({ ...common, entryPoints: [path.join(root, 'tools/scripts/migrate.ts')], outfile: path.join(outdir, 'migrate.js') }),
  ]);

  // The external packages the bundle needs, with the versions of the root package.json: the image
  // installs the workspace's production dependencies, and this list says which of them matter.
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const externals = new Set<string>();
  for (const output of Object.values(service.metafile?.outputs ?? {})) {
    for (const imported of output.imports) {
      if (!imported.external || imported.path.startsWith('node:')) continue;
      const name = imported.path.startsWith('@') ? imported.path.split('/').slice(0, 2).join('/') : imported.path.split('/')[0];
      externals.add(name);
    }
  }
  const dependencies: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of [...externals].sort()) {
    const version = manifest.dependencies?.[name];
    if (version) dependencies[name] = version;
    else if (!isBuiltin(name)) missing.push(name);
  }
  writeFileSync(
    path.join(outdir, 'package.json'),
    `${JSON.stringify({ name: `@platform/${app}`, version: manifest.version, private: true, main: 'main.js', dependencies }, null, 2)}\n`,
  );
  if (missing.length) {
    // A package only in devDependencies would be missing from the production image.
    throw new Error(
      `apps/${app} imports ${missing.join(', ')} at run time, but package.json lists ${missing.length > 1 ? 'them' : 'it'} only as a dev dependency (or not at all)`,
    );
  }
  const size = readFileSync(path.join(outdir, 'main.js')).length;
  console.log(`${app}: dist/apps/${app}/main.js (${(size / 1024).toFixed(0)} KiB) and migrate.js in ${Date.now() - started} ms`);
}

function isBuiltin(name: string): boolean {
  return (require('node:module') as typeof import('node:module')).builtinModules.includes(name);
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
