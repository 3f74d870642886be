import { MEMORY_CLASSES, MEMORY_COMPARTMENT, FORBIDDEN_PURPOSE, PERMITTED_PURPOSE } from '../../../scenarios/v8/memory.ts';
import { goalCompartments } from '../../../scenarios/v8/goals.ts';
import { missionScenarios } from '../../../scenarios/v8/missions.ts';
import { PRIMARY_PRINCIPAL, RATE_PROBE_PRINCIPAL, SECOND_PRINCIPAL } from '../../../scenarios/v8/principal.ts';
import { V8_SCOPES, type ProfileInput } from '../../profile/schema.ts';
import type { EmbeddedContributor } from '../embedded/types.ts';
import { declaredTier } from '../rate-limit.ts';
import { primarySkillId } from './skills.ts';

/** /v8 roles: full access, a second principal, an expired token, and one token per scope that lacks it. */
export const v8Embedded: EmbeddedContributor = (fake) => {
  const credentials: NonNullable<ProfileInput['credentials']> = [];
  const v8 = (name: string, principal: string, scopes: readonly string[], expired = false) => {
    const token = fake.context.tokens.issue('v8at_', { principal, tenant: 'tenant-a', scopes, expired });
    credentials.push({ name, token, surfaces: ['v8'], scopes: [...scopes], principal, expired });
  };
  v8('full', PRIMARY_PRINCIPAL, V8_SCOPES);
  v8('other-principal', SECOND_PRINCIPAL, V8_SCOPES);
  v8('expired', PRIMARY_PRINCIPAL, V8_SCOPES, true);
  v8('v8-rate-probe', RATE_PROBE_PRINCIPAL, ['missions:write', 'missions:read']);
  for (const scope of V8_SCOPES) v8(`without-${scope.replace(':', '-')}`, PRIMARY_PRINCIPAL, V8_SCOPES.filter((s) => s !== scope));
  const missions = Object.fromEntries(Object.entries(missionScenarios).map(([name, s]) => [name, s.request]));
  return {
    credentials,
    fixtures: {
      v8: {
        missions,
        skillId: primarySkillId(fake.context),
        memory: { compartment: MEMORY_COMPARTMENT, purpose: PERMITTED_PURPOSE, forbiddenPurpose: FORBIDDEN_PURPOSE, classes: [...MEMORY_CLASSES] },
        goalCompartments: [...(goalCompartments[PRIMARY_PRINCIPAL] ?? [])],
        rateLimitCredential: 'v8-rate-probe',
        ...declaredTier(fake.context.config.rateLimits.v8.principals[RATE_PROBE_PRINCIPAL], RATE_PROBE_PRINCIPAL),
      },
    },
  };
};
