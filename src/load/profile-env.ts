/**
 * A target profile as the environment of the load scripts: which credential plays which part
 * (by the same roles certification resolves, src/profile/roles.ts) and which fixtures are the
 * bodies. `apicert load` hands this to k6 through the process environment (never its command
 * line); vitest builds the scripts' configuration from it.
 */
import { resolveRole } from '../profile/roles.ts';
import type { Profile } from '../profile/schema.ts';
import type { Env } from './config.ts';

export function envFromProfile(profile: Profile): Env {
  const role = (name: string) => resolveRole(profile, name).credential?.token;
  const named = (surface: 'v1' | 'v8', name: string | undefined) => (name === undefined ? undefined : profile.credentials.find((c) => c.name === name && c.surfaces.includes(surface) && !c.expired)?.token);
  const env: Env = {
    APICERT_BASE_URL: profile.target.replace(/\/+$/, ''),
    APICERT_V8_TOKEN: role('v8:holding:missions:read+missions:write'),
    APICERT_V8_RATE_LIMIT_TOKEN: named('v8', profile.fixtures.v8.rateLimitCredential),
    // The other principal's probe is a create, as the ramp's requests are: it needs missions:write.
    APICERT_V8_OTHER_PRINCIPAL_TOKEN: role('v8:other-principal:missions:write'),
    APICERT_V1_KEY: role('v1:key'),
    APICERT_V1_RATE_LIMIT_KEY: named('v1', profile.fixtures.v1.rateLimitCredential),
    APICERT_V1_LIMITER_DOWN_KEY: named('v1', profile.fixtures.v1.limiterUnavailableCredential),
  };
  const mission = profile.fixtures.v8.missions.succeeds;
  const task = profile.fixtures.v1.tasks.completes;
  if (mission) env.APICERT_MISSION_BODY = JSON.stringify(mission);
  if (task) env.APICERT_V1_TASK_BODY = JSON.stringify(task);
  // The different request of the storm's conflicts, as certify's conflict rule sends it.
  const otherTask = profile.fixtures.v1.tasks.fails;
  if (otherTask) env.APICERT_V1_OTHER_TASK_BODY = JSON.stringify(otherTask);
  if (profile.fixtures.v1.turn) env.APICERT_V1_TURN_BODY = JSON.stringify(profile.fixtures.v1.turn);
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env;
}
