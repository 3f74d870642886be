import { z } from 'zod';
import { approveRequest } from '../../../contract/v1/runs.ts';
import { parseJson } from '../../../util/json.ts';
import type { Route, RouteRequest } from '../../http.ts';
import { withExtraProperties } from '../../support/extra-properties.ts';
import { gate } from '../auth.ts';
import { fieldErrors } from '../errors.ts';
import type { V1Surface } from '../surface.ts';
import { isFinished, stateName, type Run } from './engine.ts';
import { pipe } from './stream.ts';

const RUN_ID = '([^/]+)';
const DECISIONS = ['approved', 'rejected'] as const;
type Decision = (typeof DECISIONS)[number];

/**
 * The decision words this fake takes, by the decision they make: `approved` / `rejected` by default (the
 * convention, "unconfirmed"), `approve` / `reject` under `v1.runs/decision-verbs` ("the allowed values of
 * `decision`: not shown"), where the conventional words are refused.
 */
export function decisionWords(fake: V1Surface['fake']): Readonly<Record<Decision, string>> {
  return fake.variants.has('v1.runs/decision-verbs') ? { approved: 'approve', rejected: 'reject' } : { approved: 'approved', rejected: 'rejected' };
}

/** The caller's run named by the path, after auth and rate limit; 404 when the tenant has no such run. */
function runOf(surface: V1Surface, r: RouteRequest, scope: 'runs:read' | 'runs:write'): Run | undefined {
  const caller = gate(surface, r, [scope]);
  if (!caller) return undefined;
  const run = surface.state.engine.find(caller.tenant, r.params[0]!);
  if (!run) surface.v1.problem(r.res, 404, 'invalid_request', { detail: 'No run with this id for this tenant.', retryable: false });
  return run;
}

function getRun(surface: V1Surface, r: RouteRequest): void {
  const run = runOf(surface, r, 'runs:read');
  if (!run) return;
  const text = JSON.stringify(surface.state.engine.projection(run));
  r.res.writeHead(200, { 'content-type': surface.fake.faults.has('v1.runs.get/html') ? 'text/html' : 'application/json', 'content-length': Buffer.byteLength(text) });
  r.res.end(text);
}

function events(surface: V1Surface, r: RouteRequest): void {
  const { fake, v1, state } = surface;
  const run = runOf(surface, r, 'runs:read');
  if (!run) return;
  if (fake.faults.has('v1.runs.events.stream/json-stream')) {
    v1.json(r.res, 200, run.events.map((e) => ({ id: String(e.sequence), ...e.data })));
    return;
  }
  let after = 0;
  const lastEventId = r.header('last-event-id');
  if (lastEventId !== undefined) {
    if (!/^\d{1,15}$/.test(lastEventId.trim())) {
      v1.problem(r.res, 400, 'invalid_request', { detail: 'Last-Event-ID carries the sequence of a stored run event (an integer).', retryable: false });
      return;
    }
    after = Number(lastEventId.trim());
    if (fake.faults.has('v1.runs.events.resume/repeats-cursor-event')) after -= 1;
  }
  const forget = fake.faults.has('v1.runs.events.dropped-connection/forgets-run');
  pipe(fake, state.engine, r.res, run, after, {
    runEvents: true,
    reader: lastEventId === undefined,
    onEarlyClose: () => {
      // Only runs that never parked: an approval racing the dropped stream must not lose its run.
      if (forget && run.mode === 'task' && run.state === 'in_flight' && !run.events.some((e) => e.data.action_digest !== undefined)) state.engine.forget(run);
    },
  });
}

/** The approve body, validated; answers 400 itself and returns undefined when it is unusable. */
async function approveBody({ fake, v1 }: V1Surface, r: RouteRequest): Promise<{ action_digest: string; decision: Decision; word: string } | undefined> {
  const parsed = parseJson(await r.body());
  const schema = fake.faults.has('v1.runs.approve.request-shape/open-body') ? z.looseObject(approveRequest.shape) : approveRequest;
  const body = parsed.ok ? schema.safeParse(parsed.value) : undefined;
  const words = decisionWords(fake);
  if (!body?.success) {
    v1.problem(r.res, 400, 'invalid_request', { detail: `Send {"action_digest": "...", "decision": "${words.approved}" | "${words.rejected}"} and nothing else.`, retryable: false, ...(body ? { fieldErrors: fieldErrors(body.error) } : {}) });
    return undefined;
  }
  const decision = DECISIONS.find((d) => words[d] === body.data.decision);
  if (!decision) {
    v1.problem(r.res, 400, 'invalid_request', { detail: `decision must be "${words.approved}" or "${words.rejected}".`, retryable: false, fieldErrors: [{ path: 'decision', code: 'invalid_value', message: `${words.approved} or ${words.rejected}` }] });
    return undefined;
  }
  return { action_digest: body.data.action_digest, decision, word: body.data.decision };
}

async function approve(surface: V1Surface, r: RouteRequest): Promise<void> {
  const { fake, v1, state } = surface;
  const run = runOf(surface, r, 'runs:write');
  if (!run) return;
  // No sentence orders the checks of an approve: under the variant the run's state is read before its body.
  if (run.state !== 'parked' && fake.variants.has('v1.runs/state-before-body')) {
    notParked(surface, r, run);
    return;
  }
  const body = await approveBody(surface, r);
  if (!body) return;
  // Under the fault the approval is answered 200 but never delivered: the run stays parked past the
  // resume bound the embedded profile declares (fixtures.v1.approval.resumesWithinMs).
  const stall = fake.faults.has('v1.runs.approve.resumes/no-resume') && run.state === 'parked' && run.actionDigest === body.action_digest;
  const outcome = stall ? 'approved' : state.engine.approve(run, body.action_digest, body.decision, fake.faults.has('v1.runs.approve.digest-binds/ignores-digest'));
  if (outcome === 'not-parked') notParked(surface, r, run);
  else if (outcome === 'digest-mismatch') v1.problem(r.res, 409, 'conflict', { detail: 'action_digest does not match the action this run proposes: read it again from the run.', retryable: false });
  else v1.json(r.res, 200, openBody(fake, { run_id: run.id, decision: body.word, state: stateName(fake, run.state) }));
}

function notParked({ fake, v1 }: V1Surface, r: RouteRequest, run: Run): void {
  // "Mapping of each `code` to an HTTP status: not shown.": under the variant a state refusal is a 422.
  if (fake.variants.has('v1.runs/not-parked-422')) {
    v1.problem(r.res, 422, 'invalid_request', { detail: `The run is ${stateName(fake, run.state)}, not parked awaiting approval.`, retryable: false });
    return;
  }
  v1.problem(r.res, 409, 'conflict', { detail: `The run is ${stateName(fake, run.state)}, not parked awaiting approval.`, retryable: false });
}

/** The approve and cancel answers are open objects whose contents are not shown: `{}` is one reading, more properties another. */
function openBody(fake: V1Surface['fake'], body: Record<string, unknown>): Record<string, unknown> {
  if (fake.variants.has('v1.runs/empty-bodies')) return {};
  return fake.variants.has('v1.runs/extra-properties') ? withExtraProperties(body) : body;
}

function cancel(surface: V1Surface, r: RouteRequest): void {
  const { fake, v1, state } = surface;
  const run = runOf(surface, r, 'runs:write');
  if (!run) return;
  const wasFinished = isFinished(run);
  if (wasFinished && fake.variants.has('v1.runs/cancel-finished-refused')) {
    v1.problem(r.res, 400, 'invalid_request', { detail: `The run is ${stateName(fake, run.state)}: a finished run cannot be cancelled.`, retryable: false });
    return;
  }
  // A parked run's way out under the variant is approve (decision rejected): its cancel is refused and it stays parked.
  if (run.state === 'parked' && fake.variants.has('v1.runs/cancel-parked-refused')) {
    v1.problem(r.res, 409, 'conflict', { detail: 'The run is awaiting approval: resolve it with approve (decision rejected).', retryable: false });
    return;
  }
  if (!wasFinished) {
    if (fake.faults.has('v1.runs.cancel.terminal-event/no-event')) state.engine.failInsteadOfCancel(run);
    else if (fake.faults.has('v1.runs.cancel.terminal-event/silent')) state.engine.cancelSilently(run);
    else state.engine.cancel(run);
  }
  v1.json(r.res, 200, openBody(fake, { run_id: run.id, cancellation: wasFinished ? 'not-needed' : 'accepted', state: stateName(fake, run.state) }));
}

/** GET /v1/runs/{id}, its events, approve and cancel. */
export function runsRoutes(surface: V1Surface): Route[] {
  return [
    { method: 'GET', pattern: new RegExp(`^/v1/runs/${RUN_ID}$`), handler: (r) => getRun(surface, r) },
    { method: 'GET', pattern: new RegExp(`^/v1/runs/${RUN_ID}/events$`), handler: (r) => events(surface, r) },
    { method: 'POST', pattern: new RegExp(`^/v1/runs/${RUN_ID}/approve$`), handler: (r) => approve(surface, r) },
    { method: 'POST', pattern: new RegExp(`^/v1/runs/${RUN_ID}/cancel$`), handler: (r) => cancel(surface, r) },
  ];
}
