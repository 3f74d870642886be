import { defaultTaskScript, taskScenarioOf, taskScripts, turnScript } from '../../../../scenarios/v1/runs.ts';
import type { FakeCaller } from '../../auth.ts';
import type { Route, RouteRequest } from '../../http.ts';
import { withExtraProperties } from '../../support/extra-properties.ts';
import { authenticate } from '../auth.ts';
import { servedTaskAnswer } from '../contract.ts';
import { limit } from '../errors.ts';
import { pipe } from '../runs/stream.ts';
import type { V1Surface } from '../surface.ts';
import { answeredByKey, answeredInFlight, burnKeyOnRefusal, holdInFlight, keyScope } from './idempotency.ts';
import { executeSchemas, readExecute, type ExecuteRequest } from './request.ts';

function startTask(surface: V1Surface, r: RouteRequest, caller: FakeCaller, scope: string, request: ExecuteRequest): void {
  const { fake, state } = surface;
  const scenario = taskScenarioOf(request.body);
  const run = state.engine.start(caller, 'task', scenario ? taskScripts[scenario] : defaultTaskScript);
  const answer = servedTaskAnswer(surface, r, { run_id: run.id, accepted: true });
  const body = JSON.stringify(fake.variants.has('v1.execute/extra-properties') ? withExtraProperties(answer) : answer);
  if (request.key !== undefined) state.idempotency.remember(scope, request.key, request.fingerprint, { kind: 'task', runId: run.id, body });
  const contentType = fake.faults.has('v1.execute.task.run-id/text-plain') ? 'text/plain' : 'application/json';
  r.res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  r.res.end(body);
}

function startTurn({ fake, v1, state }: V1Surface, r: RouteRequest, caller: FakeCaller, scope: string, request: ExecuteRequest): void {
  const run = state.engine.start(caller, 'turn', turnScript);
  if (request.key !== undefined) state.idempotency.remember(scope, request.key, request.fingerprint, { kind: 'turn', runId: run.id });
  if (fake.faults.has('v1.execute.turn.stream/json-response')) v1.json(r.res, 200, { run_id: run.id });
  else pipe(fake, state.engine, r.res, run, 0, { holdOpen: fake.faults.has('v1.execute.turn.stream/held-open') });
}

/** POST /v1/execute: a turn (streamed) or a task (answered with its run id), idempotent by key. */
export function executeHandler(surface: V1Surface): (r: RouteRequest) => Promise<void> {
  const schemas = executeSchemas(surface.fake);
  return async (r) => {
    const caller = authenticate(surface, r, ['runs:write']);
    if (!caller) return;
    const request = await readExecute(surface, schemas, r);
    if (!request) return;
    const scope = keyScope(surface, caller);
    if (!limit(surface.fake, surface.state, r, burnKeyOnRefusal(surface, scope, request))) return;
    if (answeredByKey(surface, r, scope, request) || answeredInFlight(surface, r, scope, request)) return;
    const release = await holdInFlight(surface, scope, request);
    try {
      // The race a storm of one new key finds (a load fault): the key is checked, then remembered later.
      // Task mode only, as the fault says: a turn storm's replayed flags are another rule's (storm-replayed).
      if (request.key !== undefined && request.mode === 'task' && surface.fake.faults.has('load.v1.idempotency.storm-one-run/race')) await new Promise((resolve) => setTimeout(resolve, 25));
      if (request.mode === 'task') startTask(surface, r, caller, scope, request);
      else startTurn(surface, r, caller, scope, request);
    } finally {
      release();
    }
  };
}

export function executeRoutes(execute: (r: RouteRequest) => Promise<void>): Route[] {
  return [{ method: 'POST', pattern: /^\/v1\/execute$/, handler: execute }];
}
