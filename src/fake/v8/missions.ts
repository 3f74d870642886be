import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { CONTRACT_HEADER, CONTRACT_VERSION, IDEMPOTENCY_KEY_PATTERN } from '../../contract/v8/common.ts';
import { createMissionRequest, resourceBudget, signalRequest } from '../../contract/v8/missions.ts';
import { canonicalJson, parseJson } from '../../util/json.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { IdempotencyStore } from '../idempotency.ts';
import { isTerminal, MissionEngine, type Mission, type StoredEvent } from './mission-engine.ts';
import { V8Responder } from './respond.ts';

interface StoredResponse {
  status: number;
  body: string;
}

const RUN_ID = '([^/]+)';

/** Input schemas: the contract's, loosened only where an active fault says so. */
function inputSchemas(fake: FakeContext) {
  const budget = fake.faults.has('v8.missions.create.budget-bounds/parallelism-65')
    ? resourceBudget.extend({ maximumParallelism: z.number().int().min(1).max(65) })
    : resourceBudget;
  const goalSpec = fake.faults.has('v8.missions.create.missing-fields/task-optional')
    ? z.looseObject({ task: z.string().optional() })
    : createMissionRequest.shape.goalSpec;
  const signal = fake.faults.has('v8.missions.signals.validation/long-name')
    ? signalRequest.extend({ signal: z.string().min(1).max(1024) })
    : signalRequest;
  return { create: createMissionRequest.extend({ goalSpec, resourceBudget: budget }), signal };
}

function writeEvent(res: ServerResponse, event: StoredEvent): void {
  const id = event.sendId ? `id: ${event.id}\n` : '';
  res.write(`${id}event: ${event.event}\ndata: ${event.data}\n\n`);
}

export function missionRoutes(fake: FakeContext, engine: MissionEngine): Route[] {
  const v8 = new V8Responder(fake);
  const schemas = inputSchemas(fake);
  const idempotency = new IdempotencyStore<StoredResponse>();
  const readersFromStart = new WeakMap<object, number>();
  const keyPattern = fake.faults.has('v8.missions.idempotency.key-format/accepts-15-chars') ? /^[A-Za-z0-9._:-]{15,128}$/ : IDEMPOTENCY_KEY_PATTERN;

  /** Validates the Idempotency-Key header; answers 400 itself and returns undefined when it is unusable. */
  function idempotencyKey(r: RouteRequest, optionalUnder: boolean): string | null | undefined {
    const key = r.header('idempotency-key');
    if (key === undefined) {
      if (optionalUnder) return null;
      v8.problem(r.res, 400, 'idempotency_key_required', 'This operation mutates state: send an Idempotency-Key header (16-128 characters of A-Za-z0-9 . _ : -).');
      return undefined;
    }
    if (!keyPattern.test(key)) {
      v8.problem(r.res, 400, 'idempotency_key_invalid', 'Idempotency-Key must be 16-128 characters of A-Za-z0-9 . _ : -.');
      return undefined;
    }
    return key;
  }

  async function jsonBody(r: RouteRequest): Promise<{ ok: true; value: unknown } | { ok: false }> {
    const parsed = parseJson(await r.body());
    if (!parsed.ok) {
      if (fake.faults.has('v8.missions.create.malformed-json/server-error') && r.req.method === 'POST' && r.path === '/v8/missions') {
        v8.problem(r.res, 500, 'internal_error', 'Unexpected token in JSON.');
      } else {
        v8.problem(r.res, 400, 'malformed_json', 'The request body is not valid JSON.');
      }
    }
    return parsed;
  }

  /** The principal comes from the token; the fault lets a principalId in the goal decide instead. */
  function ownerOf(caller: FakeCaller, goalSpec: Record<string, unknown>): string {
    const named = goalSpec.principalId;
    return typeof named === 'string' && fake.faults.has('v8.principal.from-token/goalspec-principal') ? named : caller.principal;
  }

  function findMission(caller: FakeCaller | undefined, runId: string): Mission | undefined {
    const mission = engine.missions.get(runId);
    if (!mission) return undefined;
    if (caller && mission.principal !== caller.principal && !fake.faults.has('v8.missions.get.other-principal-404/leaks')) return undefined;
    return mission;
  }

  function respondStored(res: ServerResponse, stored: StoredResponse): void {
    if (stored.body === '') v8.empty(res, stored.status);
    else v8.raw(res, stored.status, stored.body);
  }

  async function create(r: RouteRequest): Promise<void> {
    const scope = fake.faults.has('v8.missions.auth.scope-403/create-without-write') ? undefined : 'missions:write';
    const caller = v8.authorize(r, scope);
    if (!caller) return;
    const key = idempotencyKey(r, fake.faults.has('v8.missions.idempotency.key-required/optional-on-create'));
    if (key === undefined) return;
    const body = await jsonBody(r);
    if (!body.ok) return;
    const parsed = schemas.create.safeParse(body.value);
    if (!parsed.success) {
      v8.problem(r.res, 400, 'invalid_request', parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
      return;
    }
    const fingerprint = canonicalJson(body.value);
    const scopeKey = `${caller.principal}:create`;
    if (key) {
      const seen = idempotency.lookup(scopeKey, key, fingerprint);
      const replayAnyway = seen.kind === 'conflict' && fake.faults.has('v8.missions.idempotency.conflict/replays-different-body');
      if ((seen.kind === 'replay' && !fake.faults.has('v8.missions.idempotency.replay/re-executes')) || replayAnyway) {
        respondStored(r.res, seen.stored);
        return;
      }
      if (seen.kind === 'conflict') {
        v8.problem(r.res, 409, 'idempotency_conflict', 'This Idempotency-Key was used with a different body: use a new key for a new request.');
        return;
      }
    }
    // The race a storm of one new key finds: the key is checked, then remembered a tick later.
    if (key && fake.faults.has('load.v8.idempotency.storm-one-mission/race')) await new Promise((resolve) => setTimeout(resolve, 25));
    const mission = engine.create(ownerOf(caller, parsed.data.goalSpec), parsed.data.goalSpec as Record<string, unknown>, parsed.data.resourceBudget);
    const stored: StoredResponse = { status: 202, body: JSON.stringify(engine.projection(mission)) };
    if (key) idempotency.remember(scopeKey, key, fingerprint, stored);
    respondStored(r.res, stored);
  }

  function get(r: RouteRequest): void {
    const open = fake.faults.has('v8.missions.auth.missing-token-401/get-open') && r.header('authorization') === undefined;
    const caller = open ? undefined : v8.authorize(r, 'missions:read');
    if (!caller && !open) return;
    const mission = findMission(caller, r.params[0]!);
    if (!mission) {
      if (fake.faults.has('v8.missions.get.unknown-404/server-error')) v8.problem(r.res, 500, 'internal_error', 'Lookup failed.');
      else v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
      return;
    }
    const projection = engine.projection(mission);
    v8.json(r.res, 200, fake.faults.has('v8.missions.get.ok/sequence-as-string') ? { ...projection, sequence: String(projection.sequence) } : projection);
  }

  function events(r: RouteRequest): void {
    const caller = v8.authorize(r, 'missions:read');
    if (!caller) return;
    const mission = findMission(caller, r.params[0]!);
    const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', [CONTRACT_HEADER]: CONTRACT_VERSION };
    if (!mission) {
      if (fake.faults.has('v8.missions.events.unknown-404/empty-stream')) {
        r.res.writeHead(200, sseHeaders);
        r.res.end();
      } else {
        v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
      }
      return;
    }
    let after = -1;
    const lastEventId = r.header('last-event-id');
    if (lastEventId !== undefined) {
      const found = engine.locate(mission, lastEventId);
      if (found === 'outside') {
        if (!fake.faults.has('v8.missions.events.replay-window-409/unknown-cursor-replays')) {
          v8.problem(r.res, 409, 'cursor_outside_window', 'Last-Event-ID is outside the replay window: re-fetch the stream from the beginning.');
          return;
        }
      } else {
        after = fake.faults.has('v8.missions.events.resume/repeats-cursor-event') ? found - 1 : found;
      }
    }
    const res = r.res;
    res.writeHead(200, sseHeaders);
    const holdOpen = fake.faults.has('v8.missions.events.closes-after-terminal/held-open');
    const isTerminalEvent = (e: StoredEvent) => e.event === 'mission.completed' || e.event === 'mission.failed' || e.event === 'mission.cancelled';
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      mission.listeners.delete(listener);
      unregister();
      res.end();
    };
    // Readers of a mission from its start, counted for the faults that hit only a crowd of readers.
    const crowd = lastEventId === undefined ? (readersFromStart.get(mission) ?? 0) + 1 : 0;
    if (crowd > 0) readersFromStart.set(mission, crowd);
    const late = crowd > 4;
    const send = (e: StoredEvent) => {
      if (late && e.event === 'mission.started' && fake.faults.has('load.v8.events.fanout-same-events/late-subscriber-gap')) return;
      writeEvent(res, e);
      if (late && isTerminalEvent(e) && fake.faults.has('load.v8.events.fanout-one-terminal/duplicate-terminal')) writeEvent(res, e);
    };
    const listener = (e: StoredEvent) => {
      send(e);
      if (isTerminalEvent(e) && !holdOpen) end();
    };
    const unregister = fake.lifecycle.onClose(end);
    res.on('close', end);
    let sentTerminal = false;
    for (const e of engine.eventsAfter(mission, after)) {
      send(e);
      if (isTerminalEvent(e)) sentTerminal = true;
    }
    if ((sentTerminal || isTerminal(mission.status)) && !holdOpen) {
      end();
      return;
    }
    mission.listeners.add(listener);
  }

  async function signals(r: RouteRequest): Promise<void> {
    const caller = v8.authorize(r, 'missions:write');
    if (!caller) return;
    const key = idempotencyKey(r, fake.faults.has('v8.missions.signals.key-required/optional'));
    if (key === undefined) return;
    const mission = findMission(caller, r.params[0]!);
    if (!mission) {
      v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
      return;
    }
    const body = await jsonBody(r);
    if (!body.ok) return;
    const parsed = schemas.signal.safeParse(body.value);
    if (!parsed.success) {
      v8.problem(r.res, 400, 'invalid_request', parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
      return;
    }
    const fingerprint = canonicalJson(body.value);
    const scopeKey = `${caller.principal}:signal:${mission.runId}`;
    if (key) {
      const seen = idempotency.lookup(scopeKey, key, fingerprint);
      if (seen.kind === 'replay' || (seen.kind === 'conflict' && fake.faults.has('v8.missions.signals.idempotency-conflict/replays'))) {
        respondStored(r.res, seen.stored);
        return;
      }
      if (seen.kind === 'conflict') {
        v8.problem(r.res, 409, 'idempotency_conflict', 'This Idempotency-Key was used with a different signal: use a new key.');
        return;
      }
    }
    if (isTerminal(mission.status) && !fake.faults.has('v8.missions.signals.terminal-409/accepted')) {
      v8.problem(r.res, 409, 'mission_terminal', `The mission is ${mission.status}; signals to a terminal mission are refused.`);
      return;
    }
    engine.recordSignal(mission, parsed.data.signal, parsed.data.payload);
    const stored: StoredResponse = fake.faults.has('v8.missions.signals.accepted/json-body')
      ? { status: 202, body: JSON.stringify({ accepted: true }) }
      : { status: 200, body: '' };
    if (key) idempotency.remember(scopeKey, key, fingerprint, stored);
    respondStored(r.res, stored);
  }

  function cancel(r: RouteRequest): void {
    const caller = v8.authorize(r, 'missions:write');
    if (!caller) return;
    const key = idempotencyKey(r, fake.faults.has('v8.missions.cancel.key-required/optional'));
    if (key === undefined) return;
    const mission = findMission(caller, r.params[0]!);
    if (!mission) {
      v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
      return;
    }
    if (!fake.faults.has('v8.missions.cancel.cancelled/no-effect')) engine.cancel(mission, 'cancelled by request');
    v8.json(r.res, 200, engine.projection(mission));
  }

  return [
    { method: 'POST', pattern: /^\/v8\/missions$/, handler: create },
    { method: 'GET', pattern: new RegExp(`^/v8/missions/${RUN_ID}$`), handler: get },
    { method: 'GET', pattern: new RegExp(`^/v8/missions/${RUN_ID}/events$`), handler: events },
    { method: 'POST', pattern: new RegExp(`^/v8/missions/${RUN_ID}/signals$`), handler: signals },
    { method: 'POST', pattern: new RegExp(`^/v8/missions/${RUN_ID}/cancel$`), handler: cancel },
  ];
}
