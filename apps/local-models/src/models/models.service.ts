import { ApiError, notFound } from '@platform/http';
import type { Logger } from '@platform/telemetry';
import { normalizeModelName, type ModelSummary } from '../backends/backend';
import type { GgufLibrary, GgufModel } from '../backends/gguf-library';
import type { EmbeddedBackend } from '../backends/embedded.backend';
import type { OllamaBackend } from '../backends/ollama.backend';

export type ResolvedModel = { backend: 'embedded'; name: string; entry: GgufModel } | { backend: 'ollama'; name: string; summary: ModelSummary };

export interface ModelListing {
  models: ModelSummary[];
  /** Backends that could not be listed (Ollama down): their models are missing from `models`. */
  unavailable: Array<{ backend: 'ollama'; message: string }>;
}

/**
 * Every model the service can run and the backend that runs it. A GGUF file of the models directory
 * wins over an Ollama model of the same name (the operator put it there on purpose).
 */
export class ModelCatalog {
  constructor(
    private readonly library: GgufLibrary | undefined,
    private readonly ollama: OllamaBackend | undefined,
    private readonly logger: Logger,
    private readonly embedded?: EmbeddedBackend,
  ) {}

  async list(): Promise<ModelListing> {
    const embedded = (await this.library?.list()) ?? [];
    const names = new Set(embedded.map((model) => model.name));
    const listing: ModelListing = { models: embedded.map((model) => model.summary), unavailable: [] };
    if (this.ollama) {
      try {
        for (const model of await this.ollama.list()) if (!names.has(normalizeModelName(model.name))) listing.models.push(model);
      } catch (error) {
        this.logger.warn({ err: error }, 'Ollama models could not be listed');
        listing.unavailable.push({ backend: 'ollama', message: (error as Error).message });
      }
    }
    return listing;
  }

  /** The backend of a model; 404 naming the available models, 502 when Ollama could have it but is down. */
  async resolve(name: string): Promise<ResolvedModel> {
    const entry = await this.library?.find(name);
    if (entry) return { backend: 'embedded', name: entry.name, entry };
    if (this.ollama) {
      let summary: ModelSummary | undefined;
      try {
        summary = await this.ollama.find(name);
      } catch (error) {
        if (error instanceof ApiError && error.status === 502) {
          throw new ApiError(502, error.type, error.code, `Model '${name}' is not a local file and Ollama cannot be asked: ${error.message}`, error.details);
        }
        throw error;
      }
      if (summary) return { backend: 'ollama', name: summary.name, summary };
    }
    const { models } = await this.list();
    throw notFound(`Model '${name}' not found`, { model: name, available: models.map((model) => model.name) });
  }

  /** Ollama's `/api/show`: details, the header's metadata as `model_info`, the chat template. */
  async show(name: string): Promise<Record<string, unknown>> {
    const model = await this.resolve(name);
    if (model.backend === 'ollama') {
      const shown = await this.ollama!.request<Record<string, unknown>>('/api/show', { model: name }, new AbortController().signal);
      return { ...shown, backend: 'ollama' };
    }
    const { entry } = model;
    return {
      modelfile: `FROM ${entry.file}`,
      parameters: '',
      template: entry.template ?? '',
      details: entry.summary.details,
      model_info: entry.info,
      capabilities: ['completion', 'embedding'],
      modified_at: entry.summary.modified_at,
      backend: 'embedded',
    };
  }

  /** Ollama's `/api/ps`: the embedded models in memory, then Ollama's own (when it answers). */
  async running(): Promise<ModelListing> {
    const loaded = (await this.embedded?.running()) ?? [];
    const listing: ModelListing = {
      models: loaded.map(({ entry, size }) => ({
        ...entry.summary,
        size,
        // Kept until another model needs the room (LOCAL_MODELS_MAX_LOADED), not for a set time.
        expires_at: '9999-12-31T23:59:59Z',
        size_vram: 0,
      })),
      unavailable: [],
    };
    if (this.ollama) {
      try {
        const { models = [] } = await this.ollama.get<{ models?: Array<Record<string, unknown>> }>('/api/ps');
        for (const model of models) listing.models.push({ ...(model as unknown as ModelSummary), backend: 'ollama' });
      } catch (error) {
        listing.unavailable.push({ backend: 'ollama', message: (error as Error).message });
      }
    }
    return listing;
  }
}
