/**
 * The fault registry: every way the reference fake can be told to break one rule. One file per
 * rule area, `faults/<surface>/<area>.ts`, listed here explicitly; the fake bends for a fault in the
 * file or folder of the same name, `src/fake/<surface>/<area>(.ts|/)` (suites/harness/structure.test.ts).
 */
import { loadFaults } from './load.ts';
import { mcpAuthFaults } from './mcp/auth.ts';
import { mcpBatchFaults } from './mcp/batch.ts';
import { mcpCatalogueFaults } from './mcp/catalogue.ts';
import { mcpJsonrpcFaults } from './mcp/jsonrpc.ts';
import { mcpLifecycleFaults } from './mcp/lifecycle.ts';
import { mcpRedactionFaults } from './mcp/redaction.ts';
import { mcpSessionFaults } from './mcp/session.ts';
import { mcpSseFaults } from './mcp/sse.ts';
import { mcpTransportFaults } from './mcp/transport.ts';
import type { FaultDefinition } from './types.ts';
import { v1AuthFaults } from './v1/auth.ts';
import { v1CatalogueFaults } from './v1/catalogue.ts';
import { v1ContractFaults } from './v1/contract.ts';
import { v1ErrorsFaults } from './v1/errors.ts';
import { v1ExecuteFaults } from './v1/execute.ts';
import { v1RunsFaults } from './v1/runs.ts';
import { v1UsageFaults } from './v1/usage.ts';
import { v1VersioningFaults } from './v1/versioning.ts';
import { v1WebhooksFaults } from './v1/webhooks.ts';
import { v8AuthFaults } from './v8/auth.ts';
import { v8CapabilitiesFaults } from './v8/capabilities.ts';
import { v8CatalogueFaults } from './v8/catalogue.ts';
import { v8CertificatesFaults } from './v8/certificates.ts';
import { v8ContractFaults } from './v8/contract.ts';
import { v8CoverageFaults } from './v8/coverage.ts';
import { v8ErrorsFaults } from './v8/errors.ts';
import { v8GoalsFaults } from './v8/goals.ts';
import { v8MemoryFaults } from './v8/memory.ts';
import { v8MissionsFaults } from './v8/missions.ts';
import { v8PrincipalFaults } from './v8/principal.ts';
import { v8RedactionFaults } from './v8/redaction.ts';
import { v8SkillsFaults } from './v8/skills.ts';
import { v8TracesFaults } from './v8/traces.ts';

export { ruleOfFault, type FaultDefinition } from './types.ts';

export const V8_FAULTS = [
  ...v8MissionsFaults,
  ...v8AuthFaults,
  ...v8PrincipalFaults,
  ...v8CapabilitiesFaults,
  ...v8CertificatesFaults,
  ...v8GoalsFaults,
  ...v8ContractFaults,
  ...v8ErrorsFaults,
  ...v8CoverageFaults,
  ...v8MemoryFaults,
  ...v8RedactionFaults,
  ...v8SkillsFaults,
  ...v8TracesFaults,
  ...v8CatalogueFaults,
] as const satisfies readonly FaultDefinition[];

export const V1_FAULTS = [
  ...v1AuthFaults,
  ...v1ContractFaults,
  ...v1ErrorsFaults,
  ...v1ExecuteFaults,
  ...v1RunsFaults,
  ...v1UsageFaults,
  ...v1VersioningFaults,
  ...v1WebhooksFaults,
  ...v1CatalogueFaults,
] as const satisfies readonly FaultDefinition[];

export const MCP_FAULTS = [
  ...mcpAuthFaults,
  ...mcpBatchFaults,
  ...mcpJsonrpcFaults,
  ...mcpLifecycleFaults,
  ...mcpRedactionFaults,
  ...mcpSessionFaults,
  ...mcpSseFaults,
  ...mcpTransportFaults,
  ...mcpCatalogueFaults,
] as const satisfies readonly FaultDefinition[];

export const FAULTS = [...V8_FAULTS, ...V1_FAULTS, ...MCP_FAULTS] as const satisfies readonly FaultDefinition[];

/** Faults of the load rules: judged by the load scripts' verdicts, not by certify (so not in the fault matrix). */
export const LOAD_FAULTS = loadFaults;

export type FaultId = (typeof FAULTS)[number]['id'] | (typeof LOAD_FAULTS)[number]['id'];

const known = new Set<string>([...FAULTS, ...LOAD_FAULTS].map((f) => f.id));

export function isFaultId(value: string): value is FaultId {
  return known.has(value);
}

/** The faults a fake runs with; a lookup per request, so it stays a Set. */
export class FaultSet {
  private readonly active: ReadonlySet<string>;
  constructor(ids: Iterable<FaultId> = []) {
    this.active = new Set(ids);
  }
  has(id: FaultId): boolean {
    return this.active.has(id);
  }
  list(): string[] {
    return [...this.active];
  }
}
