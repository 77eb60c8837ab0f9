import { localModels, type Pricing } from '@platform/contracts';
import { z } from 'zod';
import type { Caller, InferenceService } from '../inference/inference.service';
import type { ModelCatalog } from '../models/models.service';

const inputSchema = z.toJSONSchema(localModels.InvokeRequest.shape.input, { io: 'input' }) as Record<string, unknown>;

const TOOLS: localModels.ToolsResponse['tools'] = [
  { name: 'generate', description: "Completes a prompt (with the model's chat template); output is the text.", inputSchema },
  { name: 'chat', description: 'Answers the prompt as one user message of a chat, after an optional system message; output is the text.', inputSchema },
  { name: 'embed', description: 'Embeds the prompt; output is the vector.', inputSchema },
];

/** Spec 2's `/tools` and `/invoke`: the models as tools, one call answered with its cost and duration. */
export class ToolsService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly inference: InferenceService,
    private readonly pricing: Pricing,
  ) {}

  async tools(): Promise<localModels.ToolsResponse> {
    const { models } = await this.catalog.list();
    return {
      tools: TOOLS,
      models: models.map((model) => ({ name: model.name, backend: model.backend, pricePer1kTokens: this.pricing.priceOf(model.name, model.backend) })),
    };
  }

  async invoke(request: localModels.InvokeRequest, signal: AbortSignal, caller: Caller): Promise<localModels.InvokeResponse> {
    const started = performance.now();
    const completion = await this.inference.complete(request.tool, request.input, signal, caller);
    return {
      result: { output: completion.output, model: completion.model },
      cost: this.pricing.cost(completion.model, completion.backend, completion.promptTokens, completion.completionTokens),
      duration: Math.round((performance.now() - started) * 1000) / 1000,
      usage: {
        promptTokens: completion.promptTokens,
        completionTokens: completion.completionTokens,
        totalTokens: completion.promptTokens + completion.completionTokens,
      },
      backend: completion.backend,
    };
  }
}
