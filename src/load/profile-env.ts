/**
 * A target profile as the environment of the load scripts: which credential plays which part and
 * which fixtures are the bodies. `apicert load` hands this to k6 through the process environment
 * (never its command line); vitest builds the scripts' configuration from it.
 */
import type { Credential, Profile } from '../profile/schema.ts';
import type { Env } from './config.ts';

const V8_FULL = ['missions:read', 'missions:write'];
const V1_FULL = ['runs:read', 'runs:write'];

function holds(c: Credential, surface: 'v8' | 'v1', scopes: readonly string[]): boolean {
  return c.surfaces.includes(surface) && !c.expired && scopes.every((s) => c.scopes.includes(s));
}

export function envFromProfile(profile: Profile): Env {
  const env: Env = { APICERT_BASE_URL: profile.target.replace(/\/+$/, '') };
  const v8 = profile.credentials.find((c) => holds(c, 'v8', V8_FULL));
  const v8Other = v8 && profile.credentials.find((c) => holds(c, 'v8', ['missions:read']) && c.principal !== v8.principal);
  const v1 = profile.credentials.find((c) => holds(c, 'v1', V1_FULL) && c.name !== profile.fixtures.v1.rateLimitCredential && c.name !== profile.fixtures.v1.limiterUnavailableCredential);
  const named = (name: string | undefined) => (name === undefined ? undefined : profile.credentials.find((c) => c.name === name && c.surfaces.includes('v1') && !c.expired));
  env.APICERT_V8_TOKEN = v8?.token;
  env.APICERT_V8_OTHER_PRINCIPAL_TOKEN = v8Other?.token;
  env.APICERT_V1_KEY = v1?.token;
  env.APICERT_V1_RATE_LIMIT_KEY = named(profile.fixtures.v1.rateLimitCredential)?.token;
  env.APICERT_V1_LIMITER_DOWN_KEY = named(profile.fixtures.v1.limiterUnavailableCredential)?.token;
  const mission = profile.fixtures.v8.missions.succeeds;
  const task = profile.fixtures.v1.tasks.completes;
  if (mission) env.APICERT_MISSION_BODY = JSON.stringify(mission);
  if (task) env.APICERT_V1_TASK_BODY = JSON.stringify(task);
  if (profile.fixtures.v1.turn) env.APICERT_V1_TURN_BODY = JSON.stringify(profile.fixtures.v1.turn);
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env;
}
