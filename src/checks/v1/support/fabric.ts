/** What every /v1 check shares: credentials by role, fixtures, requests, and reading run event streams. */
import { minimalTurn } from '../../../../scenarios/v1/turns.ts';
import { CANCELLED } from '../../../contract/v1/runs.ts';
import { TERMINAL_WEBHOOK_EVENTS } from '../../../contract/v1/event-kinds.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import type { AfterEvent, CheckContext, ProbeRequest, ProbeResponse, SseEvent, StreamRequest, StreamResponse } from '../../../rule/index.ts';
import { resolveRole } from '../../../profile/roles.ts';
import type { Credential, Profile } from '../../../profile/schema.ts';
import { newKey } from '../../../util/ids.ts';
import { isRecord } from '../../../util/json.ts';
import { dataOf } from '../../../traffic/read.ts';
import { eventKindOf } from '../../../sse/event-kind.ts';
import { setupSent } from './limiter.ts';

export const EXECUTE = '/v1/execute';
export const FULL_SCOPES = ['runs:read', 'runs:write'] as const;

export type TaskFixture = keyof Profile['fixtures']['v1']['tasks'];

const TASK_PURPOSE: Record<TaskFixture, string> = {
  completes: 'finishes successfully within a few seconds',
  fails: 'fails within a few seconds',
  parks: 'parks awaiting approval',
  long: 'stays in flight for several seconds while emitting events',
};

/** A fresh Identifier for Idempotency-Key and requestId. */
export { newKey };

// ---- credentials ----

/** The ordinary caller: an unexpired v1 key holding runs:read and runs:write, not one of the special rate-limit tiers. */
export function primaryKey(ctx: CheckContext): Credential {
  return ctx.credential('v1:key');
}

/** A full key of another principal of the same tenant (tenant labels must be given to tell). */
export function otherPrincipalKey(ctx: CheckContext): Credential | undefined {
  const primary = primaryKey(ctx);
  return ctx.profile.credentials.find(
    (c) => c.surfaces.includes('v1') && !c.expired && c.principal !== primary.principal && c.tenant === primary.tenant && FULL_SCOPES.every((s) => c.scopes.includes(s)),
  );
}

/** A full key of another tenant, if the profile labels tenants and has one. */
export function findOtherTenantKey(ctx: CheckContext): Credential | undefined {
  return resolveRole(ctx.profile, 'v1:other-tenant').credential;
}

/** A full key of another tenant; both keys need a `tenant` label in the profile. */
export function otherTenantKey(ctx: CheckContext): Credential {
  return ctx.credential('v1:other-tenant');
}

/** A credential named by a fixture, of any principal: what the rate-limit error rules read its own answers with. */
export function fixtureKey(ctx: CheckContext, name: string | undefined, fixture: string, purpose: string): Credential {
  if (name === undefined) ctx.untestable({ need: 'fixture', path: `v1.${fixture}`, remedy: `name a credential ${purpose}` });
  const found = ctx.profile.credentials.find((c) => c.name === name && c.surfaces.includes('v1') && !c.expired);
  if (!found) ctx.untestable({ need: 'fixture', path: `v1.${fixture}`, problem: `names "${name}", which is not an unexpired v1 credential of the profile` });
  return found;
}

/**
 * A credential named by a fixture that must be of the primary key's principal and tenant: the idempotency
 * retry rules send a request on it and retry it with the same idempotency key on the primary key, which
 * proves nothing across principals or tenants.
 */
export function namedKey(ctx: CheckContext, name: string | undefined, fixture: string, purpose: string): Credential {
  const found = fixtureKey(ctx, name, fixture, purpose);
  const primary = primaryKey(ctx);
  if (found.principal !== primary.principal || found.tenant !== primary.tenant) {
    ctx.untestable({ need: 'fixture', path: `v1.${fixture}`, problem: `names ${name}, whose principal and tenant are not those of ${primary.name}`, remedy: 'they must be the same, so idempotency keys are shared' });
  }
  return found;
}

// ---- requests ----

export function taskBody(ctx: CheckContext, name: TaskFixture): Record<string, unknown> {
  const body = ctx.profile.fixtures.v1.tasks[name];
  if (!body) ctx.untestable({ need: 'fixture', path: `v1.tasks.${name}`, remedy: `give a task-mode body for a run that ${TASK_PURPOSE[name]}` });
  return structuredClone(body);
}

/** A turn body (the profile's, or a minimal valid one) with a fresh requestId. */
export function turnBody(ctx: CheckContext): Record<string, unknown> {
  const base = ctx.profile.fixtures.v1.turn ?? minimalTurn;
  return { ...structuredClone(base), requestId: newKey('req') };
}

export interface PostOptions {
  credential?: Credential | null;
  /** Sent as Idempotency-Key when given. */
  key?: string;
  headers?: Record<string, string>;
  label?: string;
  /** Sent instead of the JSON serialization of the body. */
  rawBody?: string;
  path?: string;
}

function executeRequest(ctx: CheckContext, body: unknown, options: PostOptions, label: string): ProbeRequest {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const request: ProbeRequest = {
    method: 'POST',
    path: options.path ?? EXECUTE,
    credential: options.credential === undefined ? primaryKey(ctx) : options.credential,
    headers,
    label: options.label ?? label,
  };
  if (options.rawBody !== undefined) request.rawBody = options.rawBody;
  else request.json = body;
  return request;
}

export function postExecute(ctx: CheckContext, body: unknown, options: PostOptions = {}): Promise<ProbeResponse> {
  return ctx.http.send(executeRequest(ctx, body, options, 'execute'));
}

/** A turn request's answer: the response, and its events when it was an event stream. */
export interface TurnAnswer {
  res: StreamResponse;
  isStream: boolean;
  events: SseEvent[];
}

export interface TurnOptions extends PostOptions {
  /**
   * Wait up to safety.streamCloseGraceMs after the terminal event for the server to close the
   * stream: only the rule that states the ending needs it. Every other reader stops at the terminal
   * event, so a stream left open never costs it the stream deadline.
   */
  awaitClose?: boolean;
  /**
   * Read a stream only to its first event, or ADMISSION_READ_MS after its headers if none comes:
   * for a rule that judges the answer's status and head alone. No sentence bounds how long a turn
   * takes ("a Server-Sent Events stream that runs until a terminal event"), and a deployment backed
   * by a model takes seconds, so such a rule must not wait for the end of hundreds of turns.
   */
  admissionOnly?: boolean;
}

/** How long an `admissionOnly` read waits for the first event after the headers. */
export const ADMISSION_READ_MS = 1_000;

/** Posts a turn body and reads its stream up to the terminal event (a turn stream ends there), or its first event (`admissionOnly`). */
export async function postTurn(ctx: CheckContext, body: unknown, options: TurnOptions = {}): Promise<TurnAnswer> {
  const terminal = terminalKinds(ctx);
  const request: StreamRequest = {
    ...executeRequest(ctx, body, { ...options, headers: { accept: 'text/event-stream', ...options.headers } }, 'execute (turn)'),
    onEvent: options.admissionOnly ? () => 'disconnect' : (event) => (terminal.has(eventKind(event) ?? '') ? afterTerminal(options.awaitClose) : 'continue'),
  };
  if (options.admissionOnly) request.maxMs = Math.min(ADMISSION_READ_MS, ctx.profile.safety.streamTimeoutMs);
  const res = await ctx.http.stream(request);
  const isStream = res.contentType.startsWith('text/event-stream');
  return { res, isStream, events: res.events };
}

/** Creates a task-mode run as setup for another rule; a refusal makes that rule untestable. */
export async function startRun(ctx: CheckContext, name: TaskFixture, options: PostOptions = {}): Promise<string> {
  const res = await setupSent(ctx, `starting the "${name}" task run`, () => postExecute(ctx, taskBody(ctx, name), { label: `setup: start the "${name}" task run`, ...options }));
  if (res.status !== 200) ctx.inconclusive(`setup failed: starting the "${name}" task run answered ${res.status}, not 200`);
  const parsed = taskResponse.safeParse(res.json);
  if (!parsed.success) ctx.inconclusive(`setup failed: the "${name}" task response carries no run_id`);
  return parsed.data.run_id;
}

/** The decision value that approves on this deployment ("the allowed values of `decision`: not shown"): the profile's, else the convention's `approved`. */
export function approveDecision(ctx: CheckContext): string {
  return ctx.profile.fixtures.v1.approval?.approveDecision ?? 'approved';
}

export function runPath(runId: string, suffix = ''): string {
  return `/v1/runs/${encodeURIComponent(runId)}${suffix}`;
}

// ---- events ----

export function eventData(e: SseEvent): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(e.data) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The kind of a run event, the one reader every /v1 rule uses (and the load scenarios, through
 * src/sse/event-kind.ts): the SSE `event` field, else the first of `type`, `kind`, `event` or
 * `event_type` in its data that is a string. "Event kinds beyond `request.accepted` and
 * `request.cancelled`, and the payload fields of events: not shown."
 */
export function eventKind(e: Pick<SseEvent, 'event' | 'data'>): string | undefined {
  return eventKindOf(e, dataOf);
}

/** What a reader does at a terminal event: wait the close grace only when the rule judges the ending. */
export function afterTerminal(awaitClose = false): AfterEvent {
  return awaitClose ? 'terminal' : 'disconnect';
}

/** The kinds that end a run's stream: request.cancelled and the profile's (or the usual) terminal kinds. */
export function terminalKindsOf(profile: Pick<Profile, 'fixtures'> | undefined): Set<string> {
  return new Set([CANCELLED, ...(profile?.fixtures.v1.terminalEvents ?? TERMINAL_WEBHOOK_EVENTS)]);
}

/** `terminalKindsOf` the check's profile. */
export function terminalKinds(ctx: CheckContext): Set<string> {
  return terminalKindsOf(ctx.profile);
}

export interface FollowOptions {
  lastEventId?: string;
  credential?: Credential | null;
  label?: string;
  maxMs?: number;
  /** Decides after each event; by default a terminal kind ends the read at once. */
  onEvent?: (event: SseEvent, seen: readonly SseEvent[]) => AfterEvent | undefined;
  /** After a terminal event, wait up to safety.streamCloseGraceMs for the server to close: only a rule judging the ending needs it. */
  awaitClose?: boolean;
  /** How long to wait for the answer's head (by default safety.requestTimeoutMs). */
  timeoutMs?: number;
}

/** Reads GET /v1/runs/{id}/events up to its terminal event (or until the server closes it, or a bound is hit). */
export function followRun(ctx: CheckContext, runId: string, options: FollowOptions = {}): Promise<StreamResponse> {
  const terminal = terminalKinds(ctx);
  const request: Parameters<typeof ctx.http.stream>[0] = {
    method: 'GET',
    path: runPath(runId, '/events'),
    credential: options.credential === undefined ? primaryKey(ctx) : options.credential,
    label: options.label ?? 'follow run events',
    onEvent: (event, seen) => options.onEvent?.(event, seen) ?? (terminal.has(eventKind(event) ?? '') ? afterTerminal(options.awaitClose) : 'continue'),
  };
  if (options.lastEventId !== undefined) request.lastEventId = options.lastEventId;
  if (options.maxMs !== undefined) request.maxMs = options.maxMs;
  if (options.timeoutMs !== undefined) request.timeoutMs = options.timeoutMs;
  return ctx.http.stream(request);
}

/** Follows a run to its terminal event; untestable when it never ends within the stream timeout. */
export async function followToTerminal(ctx: CheckContext, runId: string, fixture: TaskFixture): Promise<StreamResponse & { terminal: string }> {
  const stream = await setupSent(ctx, `the "${fixture}" run's event stream`, () => followRun(ctx, runId));
  if (stream.status !== 200) ctx.inconclusive(`setup failed: the "${fixture}" run's event stream answered ${stream.status}`);
  const terminal = terminalKinds(ctx);
  const last = stream.events.map(eventKind).find((k) => k !== undefined && terminal.has(k));
  if (!last) ctx.inconclusive(`setup failed: the "${fixture}" run sent no terminal event (${[...terminal].join(', ')}; fixtures.v1.terminalEvents) within the stream bound`);
  return { ...stream, terminal: last };
}

// ---- problems ----

/** The `code` of a problem body, read loosely: the closed shape is judged by v1.errors.problem-shape alone. */
export function problemCode(res: { json?: unknown }): string | undefined {
  return isRecord(res.json) && typeof res.json.code === 'string' ? res.json.code : undefined;
}

export function isProblem(res: { contentType: string }): boolean {
  return res.contentType.startsWith('application/problem+json');
}
