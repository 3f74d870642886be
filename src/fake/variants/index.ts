/**
 * The variant registry: every legal alternative the reference fake can take (docs/legal-variation.md
 * is the table of the points). One file per rule area, `variants/<surface>/<area>.ts`; the fake
 * bends for a variant in the file or folder of that area, like for a fault.
 */
import { mcpBatchVariants } from './mcp/batch.ts';
import { mcpJsonrpcVariants } from './mcp/jsonrpc.ts';
import { mcpLifecycleVariants } from './mcp/lifecycle.ts';
import { mcpSessionVariants } from './mcp/session.ts';
import { mcpSseVariants } from './mcp/sse.ts';
import { mcpTransportVariants } from './mcp/transport.ts';
import type { VariantDefinition } from './types.ts';
import { v1AuthVariants } from './v1/auth.ts';
import { v1ChatVariants } from './v1/chat.ts';
import { v1ContractVariants } from './v1/contract.ts';
import { v1ErrorsVariants } from './v1/errors.ts';
import { v1ExecuteVariants } from './v1/execute.ts';
import { v1RunsVariants } from './v1/runs.ts';
import { v1UsageVariants } from './v1/usage.ts';
import { v1WebhooksVariants } from './v1/webhooks.ts';
import { v8CapabilitiesVariants } from './v8/capabilities.ts';
import { v8CertificatesVariants } from './v8/certificates.ts';
import { v8ContractVariants } from './v8/contract.ts';
import { v8CoverageVariants } from './v8/coverage.ts';
import { v8ErrorsVariants } from './v8/errors.ts';
import { v8GoalsVariants } from './v8/goals.ts';
import { v8IntentsVariants } from './v8/intents.ts';
import { v8MemoryVariants } from './v8/memory.ts';
import { v8MissionsVariants } from './v8/missions.ts';
import { v8RateLimitVariants } from './v8/rate-limit.ts';
import { v8SkillsVariants } from './v8/skills.ts';
import { v8TracesVariants } from './v8/traces.ts';

export type { VariantDefinition } from './types.ts';

export const VARIANTS = [
  ...v8GoalsVariants,
  ...v8CertificatesVariants,
  ...v8MissionsVariants,
  ...v8CapabilitiesVariants,
  ...v8MemoryVariants,
  ...v8SkillsVariants,
  ...v8TracesVariants,
  ...v8CoverageVariants,
  ...v8ErrorsVariants,
  ...v8IntentsVariants,
  ...v8ContractVariants,
  ...v8RateLimitVariants,
  ...v1RunsVariants,
  ...v1ExecuteVariants,
  ...v1UsageVariants,
  ...v1WebhooksVariants,
  ...v1ErrorsVariants,
  ...v1AuthVariants,
  ...v1ChatVariants,
  ...v1ContractVariants,
  ...mcpSessionVariants,
  ...mcpTransportVariants,
  ...mcpSseVariants,
  ...mcpLifecycleVariants,
  ...mcpJsonrpcVariants,
  ...mcpBatchVariants,
] as const satisfies readonly VariantDefinition[];

export type VariantId = (typeof VARIANTS)[number]['id'];

const known = new Set<string>(VARIANTS.map((v) => v.id));

export function isVariantId(value: string): value is VariantId {
  return known.has(value);
}

/** Two variants that take different choices at one point cannot both be on; the message says which. */
export function conflictsOf(ids: readonly VariantId[]): string | undefined {
  for (const v of VARIANTS) {
    if (!ids.includes(v.id)) continue;
    const other = ('excludes' in v ? v.excludes : []).find((x) => (ids as readonly string[]).includes(x));
    if (other) return `variants ${v.id} and ${other} take different choices at the same point: pick one`;
  }
  return undefined;
}

export class VariantSet {
  private readonly on: ReadonlySet<string>;
  private readonly bent = new Set<VariantId>();
  constructor(ids: Iterable<VariantId> = []) {
    this.on = new Set(ids);
  }

  /** Asked where the fake would bend: a true answer is remembered, so a run can show each variant was taken. */
  has(id: VariantId): boolean {
    const on = this.on.has(id);
    if (on) this.bent.add(id);
    return on;
  }

  get size(): number {
    return this.on.size;
  }

  /** The variants the fake has bent for so far: one that is on but missing here changed nothing. */
  taken(): VariantId[] {
    return [...this.bent];
  }
}
