import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.skills rules: each breaks exactly the rule named before its slash. */
export const v8SkillsFaults = [
  { id: 'v8.skills.get.ok/evidence-score-above-1', description: 'evidenceScore is 1.5' },
  { id: 'v8.skills.get.ok/kind-capability', description: 'a skill says kind "api"' },
  { id: 'v8.skills.get.unknown-404/server-error', description: 'an unknown skillId gives 500' },
  { id: 'v8.skills.get.path-bounds/rejects-256', description: 'a 256-character skillId is refused with 400' },
] as const satisfies readonly FaultDefinition[];
