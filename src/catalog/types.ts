import type { CheckContext } from '../runner/context.ts';

export type Surface = 'v8' | 'v1' | 'mcp';

/** The five verdicts a check can reach; nothing else is ever reported. */
export const VERDICTS = ['pass', 'fail', 'not-applicable', 'untestable', 'inconclusive'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * `required` rules gate a certification. `observation` rules exist where the spec says
 * "not shown" or contradicts itself: they record what the target does and never gate.
 */
export type Level = 'required' | 'observation';

/** `mutate` rules create or change server-side state and only run when the profile allows it. */
export type Destructiveness = 'read' | 'mutate';

export interface SpecReference {
  /** The document the quote comes from: a file in spec/, or an external specification. */
  document: 'v8-integration-gateway.md' | 'v1-execution-fabric.md' | 'mcp-2025-03-26';
  /** Section heading path inside the document, e.g. "Endpoints > Rules". */
  section: string;
  /** The sentence(s) enforced, verbatim from the document. */
  quote: string;
  /** For external specifications: where the quote can be read. */
  url?: string;
}

export interface Rule {
  /** Stable dotted id that starts with its surface and area, e.g. `v8.missions.idempotency.conflict`. */
  id: string;
  surface: Surface;
  title: string;
  level: Level;
  destructive: Destructiveness;
  spec: SpecReference;
  check: (ctx: CheckContext) => Promise<void>;
}

export interface Observation {
  ruleId: string;
  subject: string;
  value: unknown;
  note?: string;
}

export interface Counterexample {
  seed: number;
  path: string | null;
  numRuns: number;
  value: unknown;
}
