// x-signature and identity.checksum with keys generated here.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import YAML from 'yaml';
import { canonicalJson, manifestChecksum, signManifest, validateManifest, withoutSignature, type VerifiableSignatureType } from '../index';

const manifest = () => ({
  apiVersion: 'std/v0.4.7',
  kind: 'Agent',
  metadata: {
    name: 'signed-agent',
    version: '1.0.0',
    description: 'Ünïcödé and "quotes" survive canonicalization',
    identity: { agent_id: 'signed-agent', publisher: { name: 'Example Corp' } },
    labels: { b: '2', a: '1' },
  },
  security: { tier: 'tier_2_write_limited', sandboxing: { required: true, resource_limits: { max_cpu_cores: 1.5 } } },
});

const KEYS: [VerifiableSignatureType, () => { privateKey: KeyObject; publicKey: KeyObject }][] = [
  ['Ed25519', () => generateKeyPairSync('ed25519')],
  ['RSA-PSS', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
  ['ECDSA', () => generateKeyPairSync('ec', { namedCurve: 'P-256' })],
];

const codes = (result: ReturnType<typeof validateManifest>) => result.errors.map((e) => e.code);

describe.each(KEYS)('x-signature %s', (type, generate) => {
  const { privateKey, publicKey } = generate();
  const other = generate();

  it('accepts a valid signature (publicKey as base64 DER)', () => {
    const result = validateManifest(signManifest(manifest(), privateKey, type));
    expect(result).toMatchObject({ valid: true, errors: [], warnings: [] });
  });

  it('accepts a valid signature with the publicKey as PEM, after a round trip through YAML text', () => {
    const signed = signManifest(manifest(), privateKey, type);
    signed.metadata['x-signature'].publicKey = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const result = validateManifest(YAML.stringify(signed));
    expect(result).toMatchObject({ valid: true, errors: [], format: 'yaml' });
  });

  it('rejects a manifest changed after signing (strict)', () => {
    const signed = signManifest(manifest(), privateKey, type);
    signed.metadata.description = 'changed';
    const result = validateManifest(signed, { strict: true });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([expect.objectContaining({ code: 'manifest.metadata.x-signature.value.mismatch', path: '$.metadata["x-signature"].value' })]);
  });

  it('rejects a signature checked against another key (strict)', () => {
    const signed = signManifest(manifest(), privateKey, type);
    signed.metadata['x-signature'].publicKey = other.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(codes(validateManifest(signed, { strict: true }))).toEqual(['manifest.metadata.x-signature.value.mismatch']);
  });

  it('keeps a manifest whose signature does not verify valid without strict, with a warning saying what was signed', () => {
    const signed = signManifest(manifest(), privateKey, type);
    signed.metadata.description = 'changed';
    const result = validateManifest(signed);
    expect(result).toMatchObject({ valid: true, errors: [] });
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'manifest.metadata.x-signature.value.mismatch', message: expect.stringMatching(/RFC 8785 canonical JSON/) }),
    ]);
  });

  it('is unaffected by key order and formatting (RFC 8785)', () => {
    const signed = signManifest(manifest(), privateKey, type);
    const reordered = JSON.parse(JSON.stringify(signed, Object.keys(signed).reverse()));
    expect(validateManifest(JSON.stringify(signed, null, 4)).valid).toBe(true);
    expect(validateManifest({ ...reordered, ...signed }).valid).toBe(true);
  });
});

describe('x-signature encodings and key checks', () => {
  it('verifies the documented bytes: canonical JSON without metadata["x-signature"]', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const document = manifest();
    const value = sign(null, Buffer.from(canonicalJson(document)), privateKey).toString('base64');
    const signed = {
      ...document,
      metadata: { ...document.metadata, 'x-signature': { type: 'Ed25519', value, publicKey: publicKey.export({ format: 'pem', type: 'spki' }).toString() } },
    };
    expect(canonicalJson(withoutSignature(signed))).toBe(canonicalJson(document));
    expect(validateManifest(signed).valid).toBe(true);
  });

  it('accepts ECDSA signatures in IEEE P1363 form (r || s, as JOSE writes them) and P-384 keys', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const document = manifest();
    const value = sign('sha384', Buffer.from(canonicalJson(document)), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64');
    const spki = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const signed = { ...document, metadata: { ...document.metadata, 'x-signature': { type: 'ECDSA', value, publicKey: spki } } };
    expect(validateManifest(signed)).toMatchObject({ valid: true, errors: [] });
    expect(validateManifest(signManifest(document, privateKey, 'ECDSA')).valid).toBe(true);
  });

  it('signs with a PEM private key and leaves the input untouched', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const document = manifest();
    const signed = signManifest(document, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), 'Ed25519', {
      timestamp: '2026-03-01T12:00:00Z',
      issuer: 'did:web:example.org',
    });
    expect(document.metadata).not.toHaveProperty('x-signature');
    expect(signed.metadata['x-signature']).toMatchObject({ type: 'Ed25519', timestamp: '2026-03-01T12:00:00Z', issuer: 'did:web:example.org' });
    expect(validateManifest(signed)).toMatchObject({ valid: true, errors: [], warnings: [] });
  });

  it('accepts RSA-PSS keys of type rsa-pss', () => {
    const { privateKey } = generateKeyPairSync('rsa-pss', { modulusLength: 2048 });
    expect(validateManifest(signManifest(manifest(), privateKey, 'RSA-PSS')).valid).toBe(true);
  });

  it('refuses a key of the wrong type for the signature type (strict)', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const signed = signManifest(manifest(), privateKey, 'Ed25519');
    signed.metadata['x-signature'].type = 'ECDSA';
    expect(codes(validateManifest(signed, { strict: true }))).toEqual(['manifest.metadata.x-signature.publicKey.type']);
  });

  it('refuses an unreadable public key and a value that is not base64 (strict)', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const signed = signManifest(manifest(), privateKey, 'Ed25519');
    expect(
      codes(
        validateManifest(
          { ...signed, metadata: { ...signed.metadata, 'x-signature': { ...signed.metadata['x-signature'], publicKey: 'AAAA' } } },
          { strict: true },
        ),
      ),
    ).toEqual(['manifest.metadata.x-signature.publicKey.invalid']);
    expect(
      codes(
        validateManifest({ ...signed, metadata: { ...signed.metadata, 'x-signature': { ...signed.metadata['x-signature'], value: '%%%' } } }, { strict: true }),
      ),
    ).toEqual(['manifest.metadata.x-signature.value.base64']);
  });

  it.each(['jwt', 'vc', 'did'])('warns that a %s signature is not verified, and stays valid', (type) => {
    const document = { ...manifest(), metadata: { ...manifest().metadata, 'x-signature': { type, value: 'eyJ.e30.sig', publicKey: 'did:example:123#key-1' } } };
    const result = validateManifest(document);
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'manifest.metadata.x-signature.type.unsupported', path: '$.metadata["x-signature"].type' }),
    ]);
  });
});

describe('identity.checksum', () => {
  const withChecksum = (algorithm: 'sha256' | 'sha512') => {
    const document = manifest();
    return { ...document, metadata: { ...document.metadata, identity: { ...document.metadata.identity, checksum: manifestChecksum(document, algorithm) } } };
  };

  it.each(['sha256', 'sha512'] as const)('accepts a matching %s checksum', (algorithm) => {
    const document = withChecksum(algorithm);
    expect(document.metadata.identity.checksum).toMatch(algorithm === 'sha256' ? /^sha256:[0-9a-f]{64}$/ : /^sha512:[0-9a-f]{128}$/);
    expect(validateManifest(document)).toMatchObject({ valid: true, errors: [] });
  });

  it('hashes the canonical manifest without the signature and without the checksum', () => {
    const document = manifest();
    const expected = createHash('sha256').update(canonicalJson(document)).digest('hex');
    expect(manifestChecksum(withChecksum('sha256'))).toBe(`sha256:${expected}`);
  });

  it('rejects a checksum that does not match (strict)', () => {
    const document = withChecksum('sha256');
    document.metadata.version = '1.0.1';
    const result = validateManifest(document, { strict: true });
    expect(result.errors).toEqual([expect.objectContaining({ code: 'manifest.metadata.identity.checksum.mismatch', path: '$.metadata.identity.checksum' })]);
    expect(result.errors[0].message).toContain(manifestChecksum(document));
  });

  it('warns, without strict, about a checksum that does not match, saying how it was computed', () => {
    const document = withChecksum('sha256');
    document.metadata.version = '1.0.1';
    const result = validateManifest(document);
    expect(result).toMatchObject({ valid: true, errors: [] });
    expect(result.warnings).toEqual([expect.objectContaining({ code: 'manifest.metadata.identity.checksum.mismatch' })]);
    expect(result.warnings[0].message).toMatch(
      /sha256 over the UTF-8 of the RFC 8785 canonical JSON of the manifest without metadata\["x-signature"\] and without metadata.identity.checksum/,
    );
  });

  it('stays valid when signed after the checksum is set: the signature covers the checksum', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const signed = signManifest(withChecksum('sha512'), privateKey, 'Ed25519');
    expect(validateManifest(signed)).toMatchObject({ valid: true, errors: [] });
    signed.metadata.identity.checksum = manifestChecksum(manifest(), 'sha256');
    expect(codes(validateManifest(signed, { strict: true }))).toEqual(['manifest.metadata.x-signature.value.mismatch']);
  });
});
