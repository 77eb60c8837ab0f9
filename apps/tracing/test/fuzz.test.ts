import { fuzzOpenApi } from '@platform/testing';
import { startTracing, type Harness } from './harness';

/** Every operation of /openapi.json, sent odd paths, queries and bodies: never a 5xx, always the error shape. */
describe('tracing under odd input', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTracing();
  });
  afterAll(() => h.stop());

  it('answers every fuzzed request with a 2xx/4xx in the platform error shape', async () => {
    expect(await fuzzOpenApi(h.url, { authorization: h.bearer(['*']) })).toEqual([]);
  }, 180_000);
});
