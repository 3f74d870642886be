import { z } from 'zod';
import { identifier } from '../../../contract/v1/common.ts';
import { taskRequest } from '../../../contract/v1/task.ts';
import { clientInfo, turnRequest } from '../../../contract/v1/turn.ts';
import { canonicalJson, isRecord, parseJson } from '../../../util/json.ts';
import type { FakeContext } from '../../context.ts';
import type { RouteRequest } from '../../http.ts';
import { fieldErrors } from '../errors.ts';
import type { V1Surface } from '../surface.ts';
import { refusedVersion } from '../versioning.ts';

export interface ExecuteSchemas {
  turn: z.ZodType;
  task: z.ZodType;
}

export interface ExecuteRequest {
  mode: 'turn' | 'task';
  body: unknown;
  key: string | undefined;
  /** What "the same request" means for idempotency: a normalized digest of the body. */
  fingerprint: string;
}

/** Input schemas: the contract's, loosened (or tightened) only where an active fault says so. */
export function executeSchemas(fake: FakeContext): ExecuteSchemas {
  let turn: z.ZodType = turnRequest;
  if (fake.faults.has('v1.execute.turn.bodies/client-open')) turn = turnRequest.extend({ client: z.looseObject(clientInfo.shape) });
  if (fake.faults.has('v1.execute.turn.bodies/timeout-unbounded')) turn = turnRequest.extend({ timeoutMs: z.number().int().min(1000).optional() });
  let task: z.ZodType = fake.faults.has('v1.execute.task.extra-properties/rejected') ? z.strictObject(taskRequest.shape) : taskRequest;
  if (fake.faults.has('v1.execute.task.task-object/any-task')) task = taskRequest.extend({ task: z.unknown() });
  return { turn, task };
}

/** The spec names the mode "mode:turn" but closes the turn body; a `mode: "turn"` marker is tolerated. */
function withoutTurnMarker(body: unknown): unknown {
  if (!isRecord(body) || body.mode !== 'turn') return body;
  const { mode: _mode, ...rest } = body;
  return rest;
}

/** The Idempotency-Key (header, or a turn body's `idempotencyKey`); answers 400 itself when it is malformed. */
function idempotencyKey({ fake, v1 }: V1Surface, r: RouteRequest, body: unknown, isTask: boolean): { key: string | undefined; fromBody: boolean } | undefined {
  // The body field's meaning is not stated (the turn table lists it with no note): under the variant only the header keys.
  const bodyKey = !isTask && !fake.variants.has('v1.execute/body-key-ignored') && isRecord(body) && typeof body.idempotencyKey === 'string' ? body.idempotencyKey : undefined;
  const header = r.header('idempotency-key');
  const key = header ?? bodyKey;
  const tooShort = key !== undefined && key.length < 16 && fake.faults.has('v1.execute.idempotency.key-format/min-16-chars');
  const lax = fake.faults.has('v1.execute.idempotency.key-format/any-key');
  if (key !== undefined && ((!identifier.safeParse(key).success && !lax) || tooShort)) {
    v1.problem(r.res, 400, 'invalid_request', { detail: 'Idempotency-Key must be an Identifier: 1-128 characters matching ^[A-Za-z0-9][A-Za-z0-9._:-]*$.', retryable: false, fieldErrors: [{ path: 'Idempotency-Key', code: 'invalid_string', message: 'not an Identifier' }] });
    return undefined;
  }
  return { key, fromBody: header === undefined && key !== undefined };
}

/**
 * "`Idempotency-Key` is scoped to … a normalized digest of the request" leaves the normalization
 * open, and the task body allows extra properties: under the variant the digest covers the
 * documented members alone, so a task that differs only in an unknown member is the same request.
 */
function digestedTask(fake: FakeContext, body: unknown): unknown {
  if (!isRecord(body) || !fake.variants.has('v1.execute/digest-known-members')) return body;
  const known = new Set(Object.keys(taskRequest.shape));
  return Object.fromEntries(Object.entries(body).filter(([name]) => known.has(name)));
}

/** Under the variant a turn's digest leaves out its `requestId`, which names the request rather than saying what it asks. */
function digestedTurn(fake: FakeContext, body: unknown): unknown {
  if (!isRecord(body) || !fake.variants.has('v1.execute/digest-without-request-id')) return body;
  const { requestId: _named, ...asked } = body;
  return asked;
}

/**
 * Reads and validates an execute request (version header, JSON, the mode's contract, the key);
 * answers 400 itself and returns undefined when it is unusable.
 */
export async function readExecute(surface: V1Surface, schemas: ExecuteSchemas, r: RouteRequest): Promise<ExecuteRequest | undefined> {
  const { fake, v1 } = surface;
  if (refusedVersion(surface, r)) return undefined;
  const text = await r.body();
  const parsed = parseJson(text);
  if (!parsed.ok) {
    v1.problem(r.res, 400, 'invalid_request', { detail: 'The request body is not valid JSON.', retryable: false });
    return undefined;
  }
  const isTask = isRecord(parsed.value) && parsed.value.mode === 'task';
  const body = isTask ? parsed.value : withoutTurnMarker(parsed.value);
  const valid = (isTask ? schemas.task : schemas.turn).safeParse(body);
  if (!valid.success) {
    v1.problem(r.res, 400, 'invalid_request', { detail: `The ${isTask ? 'task' : 'turn'} request does not match the contract.`, retryable: false, fieldErrors: fieldErrors(valid.error) });
    return undefined;
  }
  const key = idempotencyKey(surface, r, body, isTask);
  if (!key) return undefined;
  // The fault: a key taken from the body is remembered without its request, so another body under it replays the first.
  const keyOnly = key.fromBody && fake.faults.has('v1.execute.idempotency.body-key/conflict-replays');
  const fingerprint = keyOnly ? 'body-key' : fake.faults.has('v1.execute.idempotency.normalized/raw-text') ? text : canonicalJson(isTask ? digestedTask(fake, body) : digestedTurn(fake, body));
  return { mode: isTask ? 'task' : 'turn', body, key: key.key, fingerprint };
}
