import { missionScenarios } from '../../scenarios/v8/missions.ts';
import { parseProfile } from '../profile/load.ts';
import { V8_SCOPES, type Profile, type ProfileInput } from '../profile/schema.ts';
import type { RunningFake } from './server.ts';

/**
 * The profile for the embedded fake: tokens issued by this fake instance for every role the
 * checks ask for, and the scenario bodies as fixtures.
 */
export function embeddedProfile(fake: RunningFake): Profile {
  const tokens = fake.context.tokens;
  const credentials: ProfileInput['credentials'] = [];
  const v8 = (name: string, principal: string, scopes: readonly string[], expired = false) => {
    const token = tokens.issue('v8at_', { principal, tenant: 'tenant-a', scopes, expired });
    credentials.push({ name, token, surfaces: ['v8'], scopes: [...scopes], principal, expired });
  };
  v8('full', 'principal-a', V8_SCOPES);
  v8('other-principal', 'principal-b', V8_SCOPES);
  v8('expired', 'principal-a', V8_SCOPES, true);
  for (const scope of V8_SCOPES) {
    v8(`without-${scope.replace(':', '-')}`, 'principal-a', V8_SCOPES.filter((s) => s !== scope));
  }
  const missions = Object.fromEntries(Object.entries(missionScenarios).map(([name, s]) => [name, s.request]));
  return parseProfile(
    {
      target: fake.baseUrl,
      credentials,
      fixtures: { v8: { missions } },
      safety: { allowMutations: true, requestBudget: 20_000, requestTimeoutMs: 5_000, streamTimeoutMs: 15_000, streamCloseGraceMs: 1_000, concurrency: 6 },
    },
    'embedded fake profile',
  );
}
