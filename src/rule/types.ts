/** The vocabulary every part of apicert shares: surfaces, verdicts, levels, spec references, needs. */

/** The surfaces a deployment is certified on (`certify`); credentials belong to one of these. */
export const API_SURFACES = ['v8', 'v1', 'mcp'] as const;
export type ApiSurface = (typeof API_SURFACES)[number];
/**
 * The first segment of every rule id: the deployment's surfaces, and the other side of the wire,
 * a team's webhook receiver (`certify-receiver`) and API client (`judge-client`).
 */
export const SURFACES = [...API_SURFACES, 'receiver', 'client'] as const;
export type Surface = (typeof SURFACES)[number];

/** The five verdicts a check can reach; nothing else is ever reported. */
export const VERDICTS = ['pass', 'fail', 'not-applicable', 'untestable', 'inconclusive'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * The level comes from the quoted sentence's keyword. `required` (MUST, or a seed's plain
 * statement) gates a certification. `should` (SHOULD, RECOMMENDED) is reported as a warning and
 * gates only with `--strict`. `observation` rules exist where the spec says "not shown", leaves a
 * choice open or contradicts itself: they record what the target does and never gate.
 */
export const LEVELS = ['required', 'should', 'observation'] as const;
export type Level = (typeof LEVELS)[number];

/** `mutate` rules create or change server-side state and only run when the profile allows it. */
export type Destructiveness = 'read' | 'mutate';

export const SPEC_DOCUMENTS = ['v8-integration-gateway.md', 'v1-execution-fabric.md', 'mcp-2025-03-26', 'rfc9110'] as const;
export type SpecDocument = (typeof SPEC_DOCUMENTS)[number];

export interface SpecReference {
  /** The document the quote comes from: a file in spec/, or an external specification. */
  document: SpecDocument;
  /** Section heading path inside the document, e.g. "Endpoints > Rules". */
  section: string;
  /** The sentence(s) enforced, verbatim from the document. */
  quote: string;
  /** For external specifications: where the quote can be read. */
  url?: string;
}

/**
 * What a rule needs from the profile before it can judge anything; the planner and the runner
 * decide `untestable` from this alone, before a request is sent.
 */
export interface Needs {
  /** Credential roles, e.g. `primary`, `holding:runs:read+runs:write`, `lacking:missions:write`, `other-principal`, `expired`, `other-tenant`. */
  credentials?: readonly string[];
  /** Dotted paths below `fixtures` that must be present, e.g. `v8.missions.succeeds`. */
  fixtures?: readonly string[];
  /** The harness's webhook receiver must run (a public URL that reaches it, on a real target). */
  receiver?: boolean;
  /** The rule sends bursts up to the rate limit: needs `safety.allowRateLimitBursts`. */
  bursts?: boolean;
}

/** Everything a rule is but its check: what the registry, the planner and the reports read. */
export interface RuleMeta {
  /** Stable dotted id that starts with its surface and area, e.g. `v8.missions.idempotency.conflict`. */
  id: string;
  surface: Surface;
  title: string;
  level: Level;
  destructive: Destructiveness;
  spec: SpecReference;
  needs: Needs;
  /** Judged over every exchange of the run: runs after every other selected rule. */
  judgesTheRun?: boolean;
  /**
   * Sends bulk generated traffic (hundreds of requests): starts after every other rule has started
   * and the rules that wait on webhook deliveries have finished, so their timing never shares the
   * target with it, and before the rules that judge the whole run.
   */
  bulk?: boolean;
  /**
   * Needs a quiet target: nothing else of the run may act on it while the rule runs (a readback
   * that tells its own effect from other activity by standing still). Runs alone, one at a time,
   * after every other rule but the judges of the whole run has finished.
   */
  quiet?: boolean;
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

/** One way the target broke a rule: why, and the exchange that showed it. */
export interface FailingCase {
  reason: string;
  /** Index into the rule's reported evidence of the deciding exchange (not merely the last one sent). */
  exchange?: number;
  /** For property-based rules: the shrunk counterexample and the seed that reproduces it. */
  counterexample?: Counterexample;
}
