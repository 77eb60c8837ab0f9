import type { registry } from '@platform/contracts';
import { validateManifest, type ManifestIssue } from '@platform/manifest';

type Check = registry.CertificationCheck;
type Json = Record<string, unknown>;
const object = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

const ELEVATED_TIERS = new Set(['tier_3_write_elevated', 'tier_4_system_admin']);

export interface CertificationInput {
  manifestBytes: Uint8Array;
  format: 'json' | 'yaml';
  unpublished: boolean;
}

const check = (id: string, name: string, outcome: Check['outcome'], message: string): Check => ({ id, name, outcome, message });
const describe = (issues: ManifestIssue[]) =>
  issues
    .slice(0, 5)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');

/**
 * The checks a manifest must pass to be certified. Each yields pass, fail, warn or skip with a
 * message a publisher can act on; any fail fails the certification. The manifest is re-validated
 * from its stored bytes (the schema and its signature checks may be newer than at publish).
 */
export function runCertificationChecks(input: CertificationInput): Check[] {
  // Certification requires what publishing may let through: a checksum and signature that verify.
  const result = validateManifest(Buffer.from(input.manifestBytes), { format: input.format, strict: true });
  const document = object(result.manifest);
  const metadata = object(document.metadata);
  const security = object(document.security);
  const tier = typeof security.tier === 'string' ? security.tier : undefined;
  const elevated = tier !== undefined && ELEVATED_TIERS.has(tier);
  const sandboxing = object(security.sandboxing);
  const limits = object(sandboxing.resource_limits);
  const checks: Check[] = [];

  checks.push(
    input.unpublished
      ? check('published', 'Version is published', 'fail', 'the version was unpublished')
      : check('published', 'Version is published', 'pass', 'the version is published'),
  );

  checks.push(
    result.valid
      ? check('manifest_valid', 'Manifest is valid', 'pass', `valid against schema ${result.schemaVersion}`)
      : check('manifest_valid', 'Manifest is valid', 'fail', describe(result.errors)),
  );

  const signature = metadata['x-signature'];
  const signatureIssues = [...result.errors, ...result.warnings].filter((issue) => issue.path.includes('x-signature'));
  if (signature === undefined) {
    checks.push(
      check(
        'signature',
        'Signature verified',
        elevated ? 'fail' : 'warn',
        elevated
          ? `metadata.x-signature is required for ${tier}: sign the manifest (Ed25519, RSA-PSS or ECDSA)`
          : 'the manifest is not signed; signing lets consumers verify who published it',
      ),
    );
  } else if (signatureIssues.length > 0) {
    checks.push(check('signature', 'Signature verified', 'fail', describe(signatureIssues)));
  } else {
    checks.push(check('signature', 'Signature verified', 'pass', `${String(object(signature).type)} signature verified over the canonical manifest`));
  }

  const capabilities = object(security.capabilities);
  const declaresCapabilities = Array.isArray(capabilities.required) || Array.isArray(capabilities.optional);
  if (!tier) checks.push(check('security_posture', 'Security posture declared', 'fail', 'security.tier is missing: declare the tier the agent runs at'));
  else if (!declaresCapabilities)
    checks.push(
      check(
        'security_posture',
        'Security posture declared',
        'fail',
        'security.capabilities is missing: declare required (and optional) capabilities, even as empty lists',
      ),
    );
  else checks.push(check('security_posture', 'Security posture declared', 'pass', `tier ${tier} with declared capabilities`));

  if (!elevated) checks.push(check('sandboxing', 'Sandboxing for elevated tiers', 'skip', 'needed for tier_3 and tier_4 only'));
  else if (sandboxing.required !== true || sandboxing.type === undefined || sandboxing.type === 'none') {
    checks.push(
      check('sandboxing', 'Sandboxing for elevated tiers', 'fail', `${tier} needs security.sandboxing.required: true and a sandbox type other than none`),
    );
  } else checks.push(check('sandboxing', 'Sandboxing for elevated tiers', 'pass', `sandboxed (${String(sandboxing.type)})`));

  const threats = Array.isArray(security.threat_model) ? security.threat_model.map(object) : [];
  if (tier !== 'tier_4_system_admin')
    checks.push(
      check(
        'threat_model',
        'Threat model for tier 4',
        threats.length > 0 ? 'pass' : 'skip',
        threats.length > 0 ? `${threats.length} threat(s) modelled` : 'needed for tier_4 only',
      ),
    );
  else if (threats.length === 0)
    checks.push(check('threat_model', 'Threat model for tier 4', 'fail', 'tier_4_system_admin needs security.threat_model with at least one threat'));
  else {
    const unmitigated = threats.filter(
      (threat) => ['critical', 'high'].includes(String(threat.severity)) && !(Array.isArray(threat.mitigations) && threat.mitigations.length > 0),
    );
    checks.push(
      unmitigated.length > 0
        ? check(
            'threat_model',
            'Threat model for tier 4',
            'fail',
            `critical or high threats without mitigations: ${unmitigated.map((threat) => String(threat.category)).join(', ')}`,
          )
        : check('threat_model', 'Threat model for tier 4', 'pass', `${threats.length} threat(s) modelled, every critical and high one mitigated`),
    );
  }

  const missingLimits = ['max_memory_mb', 'max_cpu_cores', 'max_execution_seconds'].filter((limit) => typeof limits[limit] !== 'number');
  checks.push(
    missingLimits.length === 0
      ? check('resource_limits', 'Resource limits declared', 'pass', 'memory, CPU and execution time are bounded')
      : check('resource_limits', 'Resource limits declared', 'fail', `security.sandboxing.resource_limits lacks ${missingLimits.join(', ')}`),
  );

  const status = typeof metadata.status === 'string' ? metadata.status : 'active';
  checks.push(
    status === 'active'
      ? check('status', 'Not revoked or deprecated', 'pass', 'status active')
      : check('status', 'Not revoked or deprecated', 'fail', `metadata.status is ${status}`),
  );
  return checks;
}

export const certificationPassed = (checks: Check[]): boolean => checks.every((item) => item.outcome !== 'fail');
