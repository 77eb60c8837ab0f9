import { uniqueName } from '@platform/testing';
import { manifest, startRegistry, type Harness } from './fixtures';

const withForeignChecksum = (namespace: string) =>
  manifest({ namespace, name: 'checked', version: '1.0.0', extraMetadata: { identity: { agent_id: 'checked', checksum: `sha256:${'0'.repeat(64)}` } } });

/** A checksum computed by other means than ours: published with a warning, unless the operator requires verified manifests. */
describe('manifests whose checksum does not verify', () => {
  let loose: Harness;
  let strict: Harness;
  beforeAll(async () => {
    [loose, strict] = await Promise.all([startRegistry(), startRegistry({ env: { REGISTRY_REQUIRE_VERIFIED_MANIFESTS: 'true' } })]);
  });
  afterAll(async () => {
    await Promise.all([loose?.stop(), strict?.stop()]);
  });

  it('are published with the mismatch recorded as a warning of the version', async () => {
    const res = await loose.publish(loose.user().auth, withForeignChecksum(uniqueName('ns')));
    expect(res.status).toBe(201);
    expect(res.body.version.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'manifest.metadata.identity.checksum.mismatch', path: '$.metadata.identity.checksum' })]),
    );
  });

  it('are refused with 400 when REGISTRY_REQUIRE_VERIFIED_MANIFESTS is set', async () => {
    const res = await strict.publish(strict.user().auth, withForeignChecksum(uniqueName('ns')));
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([expect.objectContaining({ code: 'manifest.metadata.identity.checksum.mismatch' })]);
  });
});
