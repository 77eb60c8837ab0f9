import { z } from 'zod';
import { RUNTIME_AGENT_CLASSES, RUNTIME_CAPABILITIES, RUNTIME_FORMATTERS, RUNTIME_MEMORY_BACKENDS, RUNTIME_ORCHESTRATIONS } from '../enums';
import { RUNTIME_FRAMEWORK_VERSION } from '../patterns';
import { patterned } from './common';

export const CompressionSchema = z.looseObject({
  enable: z.boolean().meta({ default: false }).optional(),
  /** token count that triggers compression */
  trigger_threshold: z.int().optional(),
  keep_recent: z.int().meta({ default: 3 }).optional(),
});

/** `extensions.runtime_framework` (upstream's `extensions.agentscope`). */
export const RuntimeFrameworkSchema = z.strictObject({
  version: patterned(RUNTIME_FRAMEWORK_VERSION).optional(),
  agent_class: z.enum(RUNTIME_AGENT_CLASSES).meta({ default: 'ReActAgent' }).optional(),
  capabilities: z.array(z.enum(RUNTIME_CAPABILITIES)).optional(),
  memory_backend: z.enum(RUNTIME_MEMORY_BACKENDS).meta({ default: 'in_memory' }).optional(),
  orchestration: z.enum(RUNTIME_ORCHESTRATIONS).optional(),
  max_iters: z.int().min(1).max(100).meta({ default: 10 }).optional(),
  formatter: z.enum(RUNTIME_FORMATTERS).optional(),
  compression: CompressionSchema.optional(),
  skill_dirs: z.array(z.string()).optional(),
});

/** Any extension key is allowed; only `runtime_framework` has a known structure. */
export const ExtensionsSchema = z.looseObject({
  runtime_framework: RuntimeFrameworkSchema.optional(),
});
