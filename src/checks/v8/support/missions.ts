import { isTerminalEventType, missionProjection, type MissionProjection } from '../../../contract/v8/missions.ts';
import type { CheckContext, ProbeResponse, StreamResponse } from '../../../rule/index.ts';
import type { Credential, MissionRequest, Profile } from '../../../profile/schema.ts';
import { newKey } from '../../../util/ids.ts';
import { setupSent } from './limiter.ts';

export const MISSIONS = '/v8/missions';

export type MissionFixture = keyof Profile['fixtures']['v8']['missions'];

export { newKey };

export function fixture(ctx: CheckContext, name: MissionFixture): MissionRequest {
  const body = ctx.profile.fixtures.v8.missions[name];
  if (!body) ctx.untestable({ need: 'fixture', path: `v8.missions.${name}`, remedy: `give a create body for a mission that ${FIXTURE_PURPOSE[name]}` });
  return body;
}

const FIXTURE_PURPOSE: Record<MissionFixture, string> = {
  succeeds: 'reaches succeeded after at least one step',
  waits: 'stays in waiting until cancelled',
  fails: 'reaches failed',
  cancellable: 'runs for several seconds',
  timeLimit: 'runs past its maximumElapsedMs',
  overBudget: 'needs more steps than its resourceBudget.maximumSteps, with time to spare',
};

export function writer(ctx: CheckContext): Credential {
  return ctx.holding('v8', ['missions:write', 'missions:read']);
}

export interface CreateOptions {
  credential?: Credential | null;
  /** `null` sends no Idempotency-Key. */
  key?: string | null;
  label?: string;
}

export function postMission(ctx: CheckContext, body: unknown, options: CreateOptions = {}): Promise<ProbeResponse> {
  const key = options.key === undefined ? newKey() : options.key;
  const headers: Record<string, string> = key === null ? {} : { 'idempotency-key': key };
  return ctx.http.send({
    method: 'POST',
    path: MISSIONS,
    credential: options.credential === undefined ? writer(ctx) : options.credential,
    headers,
    json: body,
    label: options.label ?? 'create mission',
  });
}

/**
 * Creates a mission as setup for another rule. When the target refuses the fixture, the rule
 * under test cannot be judged, so that is untestable, not a failure.
 */
export async function createMission(ctx: CheckContext, name: MissionFixture, options: CreateOptions = {}): Promise<MissionProjection> {
  // A deployment's rate limit may refuse a fixture's create (its numbers are not shown): sent again once after the wait it
  // asks, under the same key; refused again, the check says the limiter stopped it, not that the setup failed.
  const sent = { label: `setup: create the "${name}" mission`, ...options, key: options.key === undefined ? newKey() : options.key };
  const res = await setupSent(ctx, `creating the "${name}" fixture mission`, () => postMission(ctx, fixture(ctx, name), sent));
  if (res.status !== 202) ctx.inconclusive(`setup failed: creating the "${name}" fixture mission answered ${res.status}, not 202`);
  const parsed = missionProjection.safeParse(res.json);
  if (!parsed.success) ctx.inconclusive(`setup failed: the "${name}" fixture's create response is not a mission projection`);
  return parsed.data;
}

export async function getMission(ctx: CheckContext, runId: string, credential: Credential | null = writer(ctx), label = 'read mission'): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'GET', path: `${MISSIONS}/${encodeURIComponent(runId)}`, credential, label });
}

export const isTerminalEvent = isTerminalEventType;

export interface FollowOptions {
  lastEventId?: string;
  credential?: Credential | null;
  label?: string;
  /** Drop the connection after this many events (to test resume). */
  disconnectAfter?: number;
  /**
   * After the terminal event, wait up to safety.streamCloseGraceMs for the server to close: only
   * the rule that states the ending needs it; every other reader stops at the terminal event.
   */
  awaitClose?: boolean;
  /** Stop reading after this long (the stream timeout by default). */
  maxMs?: number;
}

/** Reads a mission's event stream up to its terminal event (or until the server closes it, or a bound is hit). */
export function followEvents(ctx: CheckContext, runId: string, options: FollowOptions = {}): Promise<StreamResponse> {
  const request: Parameters<typeof ctx.http.stream>[0] = {
    method: 'GET',
    path: `${MISSIONS}/${encodeURIComponent(runId)}/events`,
    credential: options.credential === undefined ? writer(ctx) : options.credential,
    label: options.label ?? 'follow mission events',
    onEvent: (event, seen) => {
      if (options.disconnectAfter !== undefined && seen.length >= options.disconnectAfter) return 'disconnect';
      if (!isTerminalEvent(event.event)) return 'continue';
      return options.awaitClose ? 'terminal' : 'disconnect';
    },
  };
  if (options.lastEventId !== undefined) request.lastEventId = options.lastEventId;
  if (options.maxMs !== undefined) request.maxMs = options.maxMs;
  return ctx.http.stream(request);
}

/** Follows the stream to its terminal event; untestable when the fixture never ends within the stream timeout. */
export async function followToTerminal(ctx: CheckContext, runId: string, fixtureName: MissionFixture, options: Pick<FollowOptions, 'awaitClose'> = {}): Promise<StreamResponse & { terminal: string }> {
  const stream = await setupSent(ctx, `the "${fixtureName}" mission's event stream`, () => followEvents(ctx, runId, options));
  if (stream.status !== 200) ctx.inconclusive(`setup failed: the "${fixtureName}" mission's event stream answered ${stream.status}`);
  const terminal = stream.events.find((e) => isTerminalEvent(e.event))?.event;
  if (!terminal) ctx.inconclusive(`setup failed: the "${fixtureName}" mission sent no terminal event within ${ctx.profile.safety.streamTimeoutMs} ms (safety.streamTimeoutMs)`);
  return { ...stream, terminal };
}

/** Polls the mission until `until` holds or `timeoutMs` passes; returns every projection read. */
export async function pollMission(
  ctx: CheckContext,
  runId: string,
  until: (p: MissionProjection) => boolean,
  timeoutMs: number,
  everyMs = 25,
): Promise<unknown[]> {
  const seen: unknown[] = [];
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const res = await getMission(ctx, runId, writer(ctx), 'poll mission');
    seen.push(res.json);
    const parsed = missionProjection.safeParse(res.json);
    if (parsed.success && until(parsed.data)) break;
    await ctx.sleep(everyMs);
  }
  return seen;
}
