import { ErrorBody, master } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { caller, permission } from '../access';
import type { GovernanceService } from './governance.service';

export function governanceRoutes(api: ApiRouter, governance: GovernanceService, limit: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/governance/policies',
      summary: 'The policies in force',
      description: 'Built-in tier policies and the operator policies of MASTER_POLICIES, each a JSON Logic rule over the manifest.',
      tags: ['governance'],
      access: permission.governanceRead,
      before: limit,
      responses: { 200: { description: 'The policies', schema: master.PolicyList } },
      handler: () => governance.list(),
    })
    .route({
      method: 'get',
      path: '/governance/compliance/:agentId',
      summary: "An agent's compliance with the policies in force",
      description:
        'compliant is false when a policy of severity error is violated; each violation names its policy, JSON path and message. frameworks: the compliance frameworks the manifest declares.',
      tags: ['governance'],
      access: permission.governanceRead,
      before: limit,
      params: master.AgentParams,
      responses: { 200: { description: 'The compliance report', schema: master.ComplianceReport }, 404: { description: 'No such agent', schema: ErrorBody } },
      handler: (req) => governance.compliance(caller(req), req.valid.params.agentId),
    });
}
