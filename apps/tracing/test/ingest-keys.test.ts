import { createHash } from 'node:crypto';
import { IngestKeys } from '../src/ingest/ingest-keys';

describe('IngestKeys', () => {
  it('matches keys given as such or as sha256 digests, and nothing else', () => {
    const digest = createHash('sha256').update('exporter-key').digest('hex');
    const keys = new IngestKeys(['plain-key', `sha256:${digest}`, '']);
    expect(keys.size).toBe(2);
    expect(keys.matches('plain-key')).toBe(true);
    expect(keys.matches('exporter-key')).toBe(true);
    expect(keys.matches(`sha256:${digest}`)).toBe(false);
    expect(keys.matches('other')).toBe(false);
    expect(keys.matches(undefined)).toBe(false);
    expect(keys.matches('x'.repeat(2000))).toBe(false);
  });
});
