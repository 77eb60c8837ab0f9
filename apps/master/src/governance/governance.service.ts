import type { master } from '@platform/contracts';
import type { Caller } from '../access';
import type { AgentsService } from '../agents/agents.service';
import { declaredFrameworks } from '../agents/manifest-facts';
import { holds, type PolicyDefinition } from './policies';

/** Policies in force and the compliance of an agent's manifest against them. */
export class GovernanceService {
  constructor(
    private readonly policies: PolicyDefinition[],
    private readonly agents: AgentsService,
  ) {}

  list() {
    return { items: this.policies, total: this.policies.length };
  }

  evaluate(agentId: string, manifest: Record<string, unknown>): master.ComplianceReport {
    const violations: master.ComplianceReport['violations'] = [];
    for (const policy of this.policies) {
      if (policy.appliesTo !== null && policy.appliesTo !== undefined && !holds(policy.appliesTo, manifest)) continue;
      if (!holds(policy.rule, manifest)) violations.push({ policyId: policy.id, severity: policy.severity, path: policy.path, message: policy.message });
    }
    return {
      agentId,
      compliant: violations.every((violation) => violation.severity !== 'error'),
      violations,
      frameworks: declaredFrameworks(manifest),
      policiesEvaluated: this.policies.length,
      evaluatedAt: new Date().toISOString(),
    };
  }

  /** The compliance of an agent the caller may read (404 otherwise, as for one that does not exist). */
  async compliance(who: Caller, agentId: string): Promise<master.ComplianceReport> {
    const agent = await this.agents.readable(who, agentId);
    return this.evaluate(agent.id, agent.manifest as Record<string, unknown>);
  }
}
