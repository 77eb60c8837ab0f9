import type { registry } from '@platform/contracts';

export type AgentFilters = Omit<registry.AgentListQuery, 'limit' | 'offset'>;

export interface AgentQuery extends AgentFilters {
  /** Free text; absent for a plain listing. */
  text?: string;
  limit: number;
  offset: number;
}

const MAX_TERMS = 16;

/**
 * Turns free text into a tsquery of prefix terms joined with AND (`code:* & review:*`), built
 * from letters and digits only so that no input can be a tsquery syntax error. Returns
 * undefined when the text holds no word at all.
 */
export function prefixQuery(text: string): string | undefined {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_TERMS);
  return words.length > 0 ? words.map((word) => `${word}:*`).join(' & ') : undefined;
}
