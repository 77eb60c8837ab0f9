import { z } from 'zod';
import { SANDBOX_TYPES, SECURITY_CAPABILITIES, SECURITY_TIERS, THREAT_CATEGORIES, THREAT_SEVERITIES } from '../enums';
import { uniqueArray } from './common';

// Spec 1 shows the security posture only up to `sandboxing.resource_limits.max_disk_mb` and says
// nothing about extra keys here, so these objects keep unknown keys (network_access, audit, ...).

export const ThreatSchema = z.strictObject({
  category: z.enum(THREAT_CATEGORIES),
  severity: z.enum(THREAT_SEVERITIES).optional(),
  mitigations: z.array(z.string()).optional(),
  description: z.string().max(500).optional(),
});

export const CapabilitiesSchema = z.looseObject({
  /** orchestrators should refuse to run the agent when one of these is unavailable */
  required: uniqueArray(z.enum(SECURITY_CAPABILITIES)).optional(),
  /** the agent degrades gracefully without these */
  optional: uniqueArray(z.enum(SECURITY_CAPABILITIES)).optional(),
});

export const ResourceLimitsSchema = z.looseObject({
  max_memory_mb: z.int().min(64).optional(),
  max_cpu_cores: z.number().min(0.1).optional(),
  max_execution_seconds: z.int().min(1).optional(),
  max_disk_mb: z.int().optional(),
});

export const SandboxingSchema = z.looseObject({
  required: z.boolean(),
  type: z.enum(SANDBOX_TYPES).optional(),
  resource_limits: ResourceLimitsSchema.optional(),
});

export const SecurityPostureSchema = z.looseObject({
  tier: z.enum(SECURITY_TIERS).optional(),
  threat_model: z.array(ThreatSchema).optional(),
  capabilities: CapabilitiesSchema.optional(),
  sandboxing: SandboxingSchema.optional(),
});
