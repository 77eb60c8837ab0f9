import type { localModels } from '@platform/contracts';
import { ApiError } from '@platform/http';

export type ModelSummary = localModels.ModelSummary;

/** A dependency that did not answer as it should: 502 naming it (DESIGN.md, services calling services). */
export const upstreamError = (dependency: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError(502, 'api_error', 'upstream_error', message, { dependency, ...details });

/** What an embedded generation is asked to do. */
export interface SamplingParams {
  maxTokens: number;
  temperature: number;
  seed?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  repeatPenalty?: number;
  stop?: string[];
  /** Ollama's `format`: `json`, or a JSON schema the answer must follow (a grammar constrains sampling). */
  format?: 'json' | Record<string, unknown>;
}

/** What one generation did, with real token counts and timings in nanoseconds (Ollama's unit). */
export interface GenerationOutcome {
  text: string;
  promptTokens: number;
  evalTokens: number;
  doneReason: 'stop' | 'length' | 'abort';
  loadNs: number;
  promptEvalNs: number;
  evalNs: number;
  totalNs: number;
}

export interface EmbeddingOutcome {
  embeddings: number[][];
  promptTokens: number;
  loadNs: number;
  totalNs: number;
}

/** Ollama's name rule: a name without a tag means `:latest`. */
export function normalizeModelName(name: string): string {
  const trimmed = name.trim();
  const lastSegment = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? trimmed : `${trimmed}:latest`;
}

export const nanoseconds = (start: bigint, end: bigint = process.hrtime.bigint()) => Number(end - start);
