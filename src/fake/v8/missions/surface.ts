import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../contract/v8/common.ts';
import { createMissionRequest, resourceBudget, signalRequest } from '../../../contract/v8/missions.ts';
import { parseJson } from '../../../util/json.ts';
import type { FakeCaller } from '../../auth.ts';
import type { FakeContext } from '../../context.ts';
import type { RouteRequest } from '../../http.ts';
import { IdempotencyStore } from '../../idempotency.ts';
import { V8Responder } from '../respond.ts';
import type { Mission, MissionEngine } from './engine.ts';
import { keyStatuses } from './variants.ts';

/** What an Idempotency-Key remembers: the response to replay. */
export interface StoredResponse {
  status: number;
  body: string;
}

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

/** What the mission routes share. */
export interface MissionSurface {
  fake: FakeContext;
  v8: V8Responder;
  engine: MissionEngine;
  idempotency: IdempotencyStore<StoredResponse>;
  schemas: ReturnType<typeof inputSchemas>;
  keyPattern: RegExp;
}

export function missionSurface(fake: FakeContext, engine: MissionEngine): MissionSurface {
  const keyPattern = fake.faults.has('v8.missions.idempotency.key-format/accepts-15-chars') ? /^[A-Za-z0-9._:-]{15,128}$/ : IDEMPOTENCY_KEY_PATTERN;
  return { fake, v8: new V8Responder(fake), engine, idempotency: new IdempotencyStore(), schemas: inputSchemas(fake), keyPattern };
}

/** Validates the Idempotency-Key header; answers 400 (or the variant's statuses) itself and returns undefined when it is unusable. */
export function idempotencyKey({ fake, v8, keyPattern }: MissionSurface, r: RouteRequest, optionalUnder: boolean): string | null | undefined {
  const key = r.header('idempotency-key');
  const statuses = keyStatuses(fake);
  if (key === undefined) {
    if (optionalUnder) return null;
    v8.problem(r.res, statuses.missing, 'idempotency_key_required', 'This operation mutates state: send an Idempotency-Key header (16-128 characters of A-Za-z0-9 . _ : -).');
    return undefined;
  }
  if (!keyPattern.test(key)) {
    v8.problem(r.res, statuses.malformed, 'idempotency_key_invalid', 'Idempotency-Key must be 16-128 characters of A-Za-z0-9 . _ : -.');
    return undefined;
  }
  return key;
}

export async function jsonBody({ fake, v8 }: MissionSurface, r: RouteRequest): Promise<{ ok: true; value: unknown } | { ok: false }> {
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

/** Answers 400 naming the fields at fault. */
export function invalidBody({ v8 }: MissionSurface, r: RouteRequest, error: z.ZodError): void {
  v8.problem(r.res, 400, 'invalid_request', error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
}

/** The mission `runId` names, if the caller may see it (undefined caller: an anonymous read under a fault). */
export function findMission({ fake, engine }: MissionSurface, caller: FakeCaller | undefined, runId: string): Mission | undefined {
  const mission = engine.missions.get(runId);
  if (!mission) return undefined;
  if (caller && mission.principal !== caller.principal && !fake.faults.has('v8.missions.get.other-principal-404/leaks')) return undefined;
  return mission;
}

/** How a repeated key is answered where a fault bends it: replay a conflict, or run a replay again. */
export interface KeyBend {
  replayConflict: boolean;
  reExecuteReplay: boolean;
  /** The 409's detail. */
  conflictDetail: string;
  /** Answers a replay with what the resource is now instead of the stored original. */
  replayCurrent?: (stored: StoredResponse) => StoredResponse;
}

/** A repeated key: answers the replay or the 409 itself and returns true; false for a new key (or a re-executed replay). */
export function answeredByKey(surface: MissionSurface, r: RouteRequest, scope: { key: string; scopeKey: string; fingerprint: string }, bend: KeyBend): boolean {
  const seen = surface.idempotency.lookup(scope.scopeKey, scope.key, scope.fingerprint);
  if ((seen.kind === 'replay' && !bend.reExecuteReplay) || (seen.kind === 'conflict' && bend.replayConflict)) {
    respondStored(surface, r.res, seen.kind === 'replay' && bend.replayCurrent ? bend.replayCurrent(seen.stored) : seen.stored);
    return true;
  }
  if (seen.kind === 'conflict') {
    surface.v8.problem(r.res, 409, 'idempotency_conflict', bend.conflictDetail);
    return true;
  }
  return false;
}

export function respondStored({ v8 }: MissionSurface, res: ServerResponse, stored: StoredResponse): void {
  if (stored.body === '') v8.empty(res, stored.status);
  else v8.raw(res, stored.status, stored.body);
}
