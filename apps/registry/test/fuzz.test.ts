import { fuzzOpenApi } from '@platform/testing';
import { startRegistry, type Harness } from './fixtures';

/** Every operation of /openapi.json, sent odd paths, queries and bodies: never a 5xx, always the error shape. */
describe('registry under odd input', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry();
  });
  afterAll(() => h.stop());

  it('answers every fuzzed request with a 2xx/4xx in the platform error shape', async () => {
    expect(await fuzzOpenApi(h.app, { authorization: h.issuer.bearer(['*']) })).toEqual([]);
  }, 120_000);
});
