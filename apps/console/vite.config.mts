import { readFileSync } from 'node:fs';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = path.resolve(import.meta.dirname, '../..');
const gateway = process.env.CONSOLE_GATEWAY_URL ?? 'http://127.0.0.1:3002';
// The repository's `@platform/*` aliases, from the one place they are declared.
const paths = (JSON.parse(readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } })
  .compilerOptions.paths;
const alias = Object.fromEntries(Object.entries(paths).map(([name, [target]]) => [name, path.join(root, target)]));

// The console is served by the gateway from dist/apps/console; `serve` proxies its API the same way.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  resolve: {
    alias,
  },
  build: {
    outDir: path.join(root, 'dist/apps/console'),
    emptyOutDir: true,
    manifest: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    host: '127.0.0.1',
    port: Number(process.env.CONSOLE_DEV_PORT ?? 4200),
    proxy: {
      '/api': { target: gateway, changeOrigin: true, ws: true },
      '/v1': { target: gateway, changeOrigin: true, ws: true },
    },
  },
});
