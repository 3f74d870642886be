import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.memory rules: each breaks exactly the rule named before its slash. */
export const v8MemoryFaults = [
  { id: 'v8.memory.query.ok/score-as-string', description: 'entry scores are strings' },
  { id: 'v8.memory.query.ok/truncated-missing', description: 'the memory response has no truncated field' },
  { id: 'v8.memory.query.bounds/limit-51', description: 'limit 51 is accepted' },
  { id: 'v8.memory.query.bounds/duplicate-classes', description: 'classes with a repeated item are accepted' },
  { id: 'v8.memory.query.bounds/embedding-4097', description: 'a queryEmbedding of 4097 numbers is accepted' },
  { id: 'v8.memory.query.bounds/max-context-bytes-63', description: 'maxContextBytes 63 is accepted' },
  { id: 'v8.memory.query.principal-403/ignored', description: 'principalId in a memory query is ignored' },
  { id: 'v8.memory.query.purpose-403/any-purpose', description: 'any purpose is permitted' },
  { id: 'v8.memory.query.limits/limit-ignored', description: 'limit is ignored (up to 50 entries)' },
  { id: 'v8.memory.query.limits/default-limit-20', description: 'without limit, up to 20 entries come back' },
  { id: 'v8.memory.query.limits/max-context-bytes-ignored', description: 'maxContextBytes does not bound the entries' },
] as const satisfies readonly FaultDefinition[];
