import { APPROVAL_REQUIRED, taskScenarios } from '../../../scenarios/v1/runs.ts';
import { V1_SCOPES } from '../../contract/v1/common.ts';
import type { ProfileInput } from '../../profile/schema.ts';
import type { EmbeddedContributor } from '../embedded/types.ts';
import { declaredTier, V1_LIMITER_DOWN_KEY, V1_RATE_PROBE_KEY } from '../rate-limit.ts';
import { declaredResumeWithinMs, declaredTimestampFields } from './runs/engine.ts';
import { DECLARED_CANCEL_WITHIN_MS } from './runs/silent-cancel.ts';
import { decisionWords } from './runs/index.ts';
import { v1State } from './state.ts';
import { usageScopes } from './usage.ts';

/**
 * /v1 roles: full, read-only, no scopes, a second principal, another tenant, expired, and two keys
 * of the primary principal on special rate-limit tiers (a low one, and one whose limiter is down:
 * `FakeConfig.rateLimits.v1` gives tiers by these names).
 */
export const v1Embedded: EmbeddedContributor = (fake) => {
  const keyNames = v1State(fake.context).keyNames;
  const credentials: NonNullable<ProfileInput['credentials']> = [];
  const key = (name: string, who: { principal: string; tenant: string }, scopes: readonly string[], expired = false) => {
    const token = fake.context.tokens.issue('service_sk_', { ...who, scopes, expired });
    keyNames.set(token, name);
    credentials.push({ name, token, surfaces: ['v1'], scopes: [...scopes], principal: who.principal, tenant: who.tenant, expired });
  };
  const alice = { principal: 'v1-alice', tenant: 'tenant-a' };
  const scopes = usageScopes(fake.context);
  const full = [...V1_SCOPES, ...scopes.ordinary];
  key('v1-full', alice, full);
  key('v1-read-only', alice, ['runs:read']);
  key('v1-no-scopes', alice, []);
  key('v1-other-principal', { principal: 'v1-bob', tenant: 'tenant-a' }, full);
  key('v1-other-tenant', { principal: 'v1-carol', tenant: 'tenant-b' }, full);
  key('v1-expired', alice, full, true);
  // The rate-limit rules read usage with these keys: whether they hold the scope it asks for is the variants' choice.
  const limiterScopes = [...V1_SCOPES, ...scopes.limiter];
  key(V1_RATE_PROBE_KEY, alice, limiterScopes);
  key(V1_LIMITER_DOWN_KEY, alice, limiterScopes);
  const declared = declaredTimestampFields(fake.context);
  const tasks = Object.fromEntries(Object.entries(taskScenarios).map(([name, s]) => [name, s.request]));
  return {
    credentials,
    fixtures: {
      v1: {
        tasks,
        approval: { event: APPROVAL_REQUIRED, digestField: 'action_digest', approveDecision: decisionWords(fake.context).approved, resumesWithinMs: declaredResumeWithinMs(fake.context) },
        cancelledWithinMs: DECLARED_CANCEL_WITHIN_MS,
        rateLimitCredential: V1_RATE_PROBE_KEY,
        ...declaredTier(fake.context.config.rateLimits.v1.credentials[V1_RATE_PROBE_KEY], V1_RATE_PROBE_KEY),
        limiterUnavailableCredential: V1_LIMITER_DOWN_KEY,
        ...(declared ? { timestampFields: declared } : {}),
      },
    },
  };
};
