export * from './enums';
export { canonicalJson } from './canonical-json';
export { jsonPath, type ManifestIssue } from './issues';
export { ManifestParseError, parseManifestText, type ManifestFormat } from './parse';
export { manifestJsonSchema } from './json-schema';
export { ManifestSchema, type Manifest, type ManifestMetadata } from './schema/manifest';
export { MetadataSchema, IdentitySchema, PublisherSchema, CatalogSchema, MeshBindingsSchema, SignatureSchema } from './schema/metadata';
export { SecurityPostureSchema, ThreatSchema, CapabilitiesSchema, SandboxingSchema, ResourceLimitsSchema } from './schema/security';
export { ExtensionsSchema, RuntimeFrameworkSchema } from './schema/extensions';
export {
  signManifest, manifestChecksum, signedBytes, withoutSignature, withoutSignatureAndChecksum,
  type VerifiableSignatureType, type ChecksumAlgorithm,
} from './signature';
export { validateManifest, type ManifestValidationResult, type ValidateOptions } from './validate';
