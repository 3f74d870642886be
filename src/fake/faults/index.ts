/** The fault registry: every way the reference fake can be told to break one rule. */
import { loadFaults } from './load.ts';
import { mcpFaults } from './mcp.ts';
import type { FaultDefinition } from './types.ts';
import { v1Faults } from './v1.ts';
import { v1WebhooksFaults } from './v1-webhooks.ts';
import { v8MissionFaults } from './v8-missions.ts';
import { v8ReadFaults } from './v8-read.ts';

export { ruleOfFault, type FaultDefinition } from './types.ts';

export const FAULTS = [...v8MissionFaults, ...v8ReadFaults, ...v1Faults, ...v1WebhooksFaults, ...mcpFaults] as const satisfies readonly FaultDefinition[];

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
