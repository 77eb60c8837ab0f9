import { localModels } from '@platform/contracts';
import { z } from 'zod';

/** An OpenAI-compatible server the model route sends calls to. */
export interface Upstream {
  name: string;
  /** OpenAI's base URL, `/v1` included, without a trailing slash. */
  baseUrl: string;
  /** `gen_ai.system` of the calls' spans. */
  system: string;
  /** The upstream's own key, sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** The platform's own local-models: the caller's token (delegated) is forwarded instead of a key. */
  forwardCaller?: boolean;
  patterns: string[];
}

/** `GATEWAY_MODEL_UPSTREAMS`: a JSON list of upstreams, tried in order; local-models takes the rest. */
export const ModelUpstreamsConfig = z
  .string()
  .default('[]')
  .transform((text, ctx) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON list of {name, url, apiKeyEnv | apiKey, models}' });
      return z.NEVER;
    }
    const result = z.array(localModels.ModelUpstream).max(50).safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      ctx.addIssue({ code: 'custom', message: `${issue?.path.join('.')}: ${issue?.message}` });
      return z.NEVER;
    }
    return result.data;
  });

const withoutLatest = (name: string) => name.replace(/:latest$/, '');

/** Whether a model name matches a pattern: the name (`:latest` or not), a prefix ending in `*`, or `*`. */
export function matchesPattern(pattern: string, model: string): boolean {
  if (pattern.endsWith('*')) return model.startsWith(pattern.slice(0, -1));
  return pattern === model || withoutLatest(pattern) === withoutLatest(model);
}

/**
 * Which upstream serves a model: the first configured one listing it, else local-models (the
 * default upstream); and the configured fallbacks of a model.
 */
export class ModelUpstreams {
  private readonly fallbacks = new Map<string, string[]>();
  readonly all: Upstream[];

  constructor(
    configured: localModels.ModelUpstream[],
    readonly local: Upstream,
    env: Record<string, string | undefined> = process.env,
  ) {
    const upstreams = configured.map((entry) => {
      const apiKey = entry.apiKey ?? (entry.apiKeyEnv ? env[entry.apiKeyEnv] : undefined);
      if (entry.apiKeyEnv && !apiKey) throw new Error(`GATEWAY_MODEL_UPSTREAMS: ${entry.name} names ${entry.apiKeyEnv}, which is not set`);
      for (const model of entry.models) if (typeof model === 'object' && model.fallbacks) this.fallbacks.set(withoutLatest(model.name), model.fallbacks);
      return {
        name: entry.name,
        baseUrl: entry.url.replace(/\/+$/, ''),
        system: entry.system ?? entry.name,
        apiKey,
        patterns: entry.models.map((model) => (typeof model === 'string' ? model : model.name)),
      };
    });
    this.all = [...upstreams, local];
  }

  for(model: string): Upstream {
    return this.all.find((upstream) => upstream.patterns.some((pattern) => matchesPattern(pattern, model))) ?? this.local;
  }

  configuredFallbacks(model: string): string[] {
    return this.fallbacks.get(withoutLatest(model)) ?? [];
  }
}
