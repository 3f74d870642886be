/**
 * A refusal for a scope the /v1 description does not show, read one way by certify
 * (src/checks/generated/expectation.ts) and by the k6 scripts (src/load/scenarios/rate-limit.ts):
 * plain code with no zod and no Node, so esbuild can bundle it into a script.
 */
import { V1 } from '../contract/sentence.ts';
import { isRecord } from '../util/json.ts';

/** The sentence that leaves a /v1 endpoint's scope open: a key may be refused one nobody can name beforehand. */
export const V1_SCOPES_NOT_SHOWN = V1('Authentication', 'Scopes required by the other `/v1` endpoints: not shown.');

/** The related errors a deployment may refuse a key lacking a scope with: no sentence ties one of them to a missing scope. */
export const SCOPE_CODES = ['authorization_failed', 'entitlement_failed'] as const;
export type ScopeCode = (typeof SCOPE_CODES)[number];

/** The code of a 4xx problem naming one of the related errors a key lacking a scope may get, or undefined. */
export function scopeRefusalCode(answer: { status: number; json?: unknown }): ScopeCode | undefined {
  if (answer.status < 400 || answer.status >= 500 || answer.status === 429 || !isRecord(answer.json)) return undefined;
  const code = answer.json.code;
  return SCOPE_CODES.find((c) => c === code);
}

/** A 4xx problem naming one of the related errors a key lacking a scope may get (`authorization_failed`, `entitlement_failed`). */
export function scopeRefusal(answer: { status: number; json?: unknown }): boolean {
  return scopeRefusalCode(answer) !== undefined;
}
