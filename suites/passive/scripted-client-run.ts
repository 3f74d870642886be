/** The scripted client (scripted-client.ts, which imports nothing of apicert) run with the fake's credentials and scenarios. */
import { missionScenarios } from '../../scenarios/v8/missions.ts';
import { minimalTurn } from '../../scenarios/v1/turns.ts';
import { taskScenarios } from '../../scenarios/v1/runs.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { runScriptedClient } from './scripted-client.ts';

/** Runs the client against `baseUrl` (a proxy in front of the fake) with the credentials of the fake's `profile`. */
export async function runClientOfFake(baseUrl: string, profile: Profile, mistakes: boolean): Promise<void> {
  const token = (name: string) => profile.credentials.find((c) => c.name === name)!.token;
  const v8 = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired && c.scopes.includes('missions:write') && c.scopes.includes('missions:read'))!;
  await runScriptedClient({
    baseUrl,
    v1Key: token('v1-full'),
    webhookKey: token('webhooks-full'),
    v8Token: v8.token,
    task: taskScenarios.completes.request as Record<string, unknown>,
    turn: { ...minimalTurn },
    mission: missionScenarios.succeeds.request as unknown as Record<string, unknown>,
    mistakes,
  });
}
