/**
 * Memory of the fake: entries per compartment, tagged with the purposes they may serve, and the
 * purposes each principal may query with. Enough entries per class that limits and byte budgets bite.
 */
import { PRIMARY_PRINCIPAL, SECOND_PRINCIPAL } from './principal.ts';

export interface MemorySeedEntry {
  entryId: string;
  compartment: string;
  class: string;
  content: string;
  /** Relevance before the query's own contribution, so scores differ between entries. */
  baseScore: number;
  purposes: string[];
  createdAt: string;
}

export const MEMORY_COMPARTMENT = 'apicert-research';
export const MEMORY_CLASSES = ['note', 'document', 'decision'] as const;
export const PERMITTED_PURPOSE = 'apicert-support';
/** Exists in the memory, but the primary principal may not query with it. */
export const FORBIDDEN_PURPOSE = 'apicert-payroll';

export const permittedPurposes: Record<string, readonly string[]> = {
  [PRIMARY_PRINCIPAL]: [PERMITTED_PURPOSE, 'apicert-research'],
  [SECOND_PRINCIPAL]: [PERMITTED_PURPOSE, FORBIDDEN_PURPOSE],
};

const WORDS = ['quarterly', 'supplier', 'contract', 'renewal', 'incident', 'latency', 'budget', 'review', 'roadmap', 'audit', 'invoice', 'migration'];

function content(i: number): string {
  // Lengths from about 60 to 600 bytes, so a byte budget cuts at different entries.
  const words = Array.from({ length: 8 + ((i * 37) % 80) }, (_, k) => WORDS[(i + k * 5) % WORDS.length]!);
  return `Entry ${i}: ${words.join(' ')}.`;
}

export const memoryEntries: MemorySeedEntry[] = Array.from({ length: 72 }, (_, i) => ({
  entryId: `mem-${String(i).padStart(3, '0')}`,
  compartment: i % 12 === 11 ? 'apicert-finance' : MEMORY_COMPARTMENT,
  class: MEMORY_CLASSES[i % MEMORY_CLASSES.length]!,
  content: content(i),
  baseScore: ((i * 7919) % 1000) / 1250,
  purposes: i % 9 === 4 ? [FORBIDDEN_PURPOSE] : [PERMITTED_PURPOSE, 'apicert-research'],
  createdAt: new Date(Date.UTC(2026, 9, 1 + (i % 28), 9, i % 60)).toISOString(),
}));
