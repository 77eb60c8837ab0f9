import { fuzzOpenApi, type FuzzFinding } from '@platform/testing';
import { startGateway, type Gateway } from './harness';

describe('fuzzing the gateway OpenAPI', () => {
  let g: Gateway;
  beforeAll(async () => {
    // A long window keeps the fuzzer's many requests inside one bucket without 429s.
    g = await startGateway({ GATEWAY_RATE_BURST: '100000', GATEWAY_EXECUTE_TIMEOUT_MS: '500' });
  });
  afterAll(() => g.stop());

  it('finds no 5xx and no error outside the platform shape', async () => {
    // The model route (`/v1`) answers its 4xx in OpenAI's shape, as OpenAI clients expect.
    const openAiShaped = (finding: FuzzFinding) =>
      finding.path.startsWith('/v1/') && finding.status < 500 && /^\{"error":\{"message":".*","type":"[a-z_]+","code":"[a-z_]+","param":/.test(finding.body);
    const findings = await fuzzOpenApi(g.app, { authorization: g.issuer.bearer(['*']) });
    expect(findings.filter((finding) => !openAiShaped(finding))).toEqual([]);
  }, 120_000);
});
