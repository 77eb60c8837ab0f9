import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = path.resolve(import.meta.dirname, '../..');
const gateway = process.env.CONSOLE_GATEWAY_URL ?? 'http://127.0.0.1:3002';

// The console is served by the gateway from dist/apps/console; `serve` proxies its API the same way.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  resolve: {
    alias: {
      '@platform/contracts': path.join(root, 'libs/contracts/src/index.ts'),
      '@platform/sdk': path.join(root, 'libs/sdk/src/index.ts'),
    },
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
