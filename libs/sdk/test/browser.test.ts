import { build } from 'esbuild';
import path from 'node:path';

/** The SDK's runtime path imports nothing of Node: a browser bundle of it builds (as Vite's would). */
describe('the SDK in a browser bundle', () => {
  it('bundles for the browser with no Node built-in and no Node-only package', async () => {
    const result = await build({
      entryPoints: [path.join(__dirname, '../src/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile!.inputs);
    expect(inputs.filter((input) => /node_modules\/(ws|undici|yaml)\//.test(input) || input.startsWith('node:'))).toEqual([]);
    expect(inputs).toContainEqual(expect.stringContaining('openapi-fetch'));
    const code = result.outputFiles[0].text;
    expect(code).not.toMatch(/require\(["']node:|from ["']node:/);
  });
});
