import { master } from '@platform/contracts';
import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { z } from 'zod';

export type PolicyDefinition = master.Policy;

const ELEVATED = ['tier_3_write_elevated', 'tier_4_system_admin'];
const tier = { var: 'security.tier' };
const elevated = { in: [tier, ELEVATED] };

/**
 * Policies built in per security tier (spec 1's security posture), written in JSON Logic like the
 * operator's own so that one evaluator runs both. `appliesTo` selects the manifests a policy
 * concerns; `rule` must then hold.
 */
export const BUILT_IN_POLICIES: PolicyDefinition[] = [
  {
    id: 'tier-elevated-sandboxing',
    source: 'builtin',
    name: 'Tier 3 and 4 agents run sandboxed',
    description: 'An agent of tier_3_write_elevated or tier_4_system_admin must declare mandatory sandboxing.',
    severity: 'error',
    appliesTo: elevated,
    rule: { '===': [{ var: 'security.sandboxing.required' }, true] },
    path: '$.security.sandboxing.required',
    message: 'tier 3 and 4 agents must set security.sandboxing.required to true',
  },
  {
    id: 'tier-elevated-resource-limits',
    source: 'builtin',
    name: 'Tier 3 and 4 agents declare resource limits',
    description: 'An agent of tier 3 or 4 must declare sandboxing resource limits (memory, CPU, execution time or disk).',
    severity: 'error',
    appliesTo: elevated,
    rule: {
      or: [
        { var: 'security.sandboxing.resource_limits.max_memory_mb' },
        { var: 'security.sandboxing.resource_limits.max_cpu_cores' },
        { var: 'security.sandboxing.resource_limits.max_execution_seconds' },
        { var: 'security.sandboxing.resource_limits.max_disk_mb' },
      ],
    },
    path: '$.security.sandboxing.resource_limits',
    message: 'tier 3 and 4 agents must declare security.sandboxing.resource_limits',
  },
  {
    id: 'tier-elevated-threat-model',
    source: 'builtin',
    name: 'Tier 3 and 4 agents declare a threat model',
    description: 'An agent of tier 3 or 4 must declare at least one threat in security.threat_model.',
    severity: 'error',
    appliesTo: elevated,
    rule: { '>': [{ reduce: [{ var: 'security.threat_model' }, { '+': [{ var: 'accumulator' }, 1] }, 0] }, 0] },
    path: '$.security.threat_model',
    message: 'tier 3 and 4 agents must declare a threat model (security.threat_model)',
  },
  {
    id: 'secrets-read-tier',
    source: 'builtin',
    name: 'secrets-read needs tier 2 or more',
    description: 'An agent declaring the secrets-read capability (required or optional) must be tier_2_write_limited or above.',
    severity: 'error',
    appliesTo: {
      or: [
        { in: ['secrets-read', { var: ['security.capabilities.required', []] }] },
        { in: ['secrets-read', { var: ['security.capabilities.optional', []] }] },
      ],
    },
    rule: { in: [tier, ['tier_2_write_limited', ...ELEVATED]] },
    path: '$.security.tier',
    message: 'the secrets-read capability needs security.tier tier_2_write_limited or above',
  },
  {
    id: 'agent-tier-declared',
    source: 'builtin',
    name: 'Agents declare a security tier',
    description: 'An Agent manifest should declare security.tier so that the tier policies can judge it.',
    severity: 'warning',
    appliesTo: { '===': [{ var: 'kind' }, 'Agent'] },
    rule: { '!!': [tier] },
    path: '$.security.tier',
    message: 'declare security.tier (tier_1_read to tier_4_system_admin)',
  },
];

/** Runs a JSON Logic expression; an expression that throws counts as false. */
export function holds(logic: unknown, data: object): boolean {
  try {
    return jsonLogic.truthy(jsonLogic.apply(logic as RulesLogic, data));
  } catch {
    return false;
  }
}

/**
 * Reads MASTER_POLICIES (a JSON array of operator policies). Every rule must be JSON Logic made
 * of known operations: an unknown one stops start-up naming the policy, rather than failing open.
 */
export function parseOperatorPolicies(text: string): PolicyDefinition[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`MASTER_POLICIES is not JSON: ${(error as Error).message}`);
  }
  const parsed = z.array(master.OperatorPolicy).max(500).safeParse(raw);
  if (!parsed.success)
    throw new Error(`MASTER_POLICIES is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const builtIn = new Set(BUILT_IN_POLICIES.map((policy) => policy.id));
  const seen = new Set<string>();
  return parsed.data.map((policy) => {
    if (builtIn.has(policy.id) || seen.has(policy.id)) throw new Error(`MASTER_POLICIES: policy id ${policy.id} is used twice`);
    seen.add(policy.id);
    for (const [field, logic] of [
      ['rule', policy.rule],
      ['appliesTo', policy.appliesTo],
    ] as const) {
      if (logic === undefined) continue;
      try {
        jsonLogic.apply(logic as RulesLogic, {});
      } catch (error) {
        throw new Error(`MASTER_POLICIES: policy ${policy.id} has an invalid ${field}: ${(error as Error).message}`);
      }
    }
    return { ...policy, source: 'config' as const, appliesTo: policy.appliesTo ?? null };
  });
}
