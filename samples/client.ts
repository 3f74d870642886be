/**
 * An API client of /v8 and /v1 that follows the seeds' client rules: it checks the contract version
 * before sending missions, resumes and re-fetches mission streams, retries 429/503 with the same
 * Idempotency-Key after the hint, uses a new key after a 409 conflict, reconciles after an ambiguous
 * failure, and reads a run back after a dropped stream (turn mode) or a cut run event stream (task
 * mode) before it would post again. With `--fault` it breaks exactly one rule.
 *
 *   APICERT_BASE_URL=... APICERT_V1_KEY=... APICERT_V8_TOKEN=... [APICERT_TIME_SCALE=0.02] node samples/client.ts [--fault NAME]
 *
 * `apicert judge-client -- node samples/client.ts` sets the variables. It gives up after 60 s.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { CLIENT_FAULTS } from './faults.ts';

type Fault = keyof typeof CLIENT_FAULTS;

const { values } = parseArgs({ options: { fault: { type: 'string' } } });
const fault = values.fault as Fault | undefined;
if (fault !== undefined && !(fault in CLIENT_FAULTS)) {
  console.error(`unknown fault ${fault}: use one of ${Object.keys(CLIENT_FAULTS).join(', ')}`);
  process.exit(2);
}
const base = process.env.APICERT_BASE_URL;
const v1Key = process.env.APICERT_V1_KEY;
const v8Token = process.env.APICERT_V8_TOKEN;
if (!base || !v1Key || !v8Token) {
  console.error('set APICERT_BASE_URL, APICERT_V1_KEY and APICERT_V8_TOKEN (apicert judge-client does)');
  process.exit(2);
}
const scale = Number(process.env.APICERT_TIME_SCALE ?? '1');
/** Limits: "Use 60 seconds as the retry hint when no `Retry-After` is given." */
const DEFAULT_HINT_MS = 60_000 * scale;
const EXPECTED_CONTRACT = 'service-integration-gateway-v8.1';
const TERMINAL = new Set(['mission.completed', 'mission.failed', 'mission.cancelled', 'run.completed', 'run.failed', 'request.cancelled']);
setTimeout(() => {
  console.error('gave up after 60 s');
  process.exit(3);
}, 60_000).unref();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long the client waits after a connection reset before it reconciles. */
const RESET_BACKOFF_MS = 100;
const newKey = () => `sample-${randomUUID()}`;
const v1Headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${v1Key}`, 'content-type': 'application/json', ...extra });
const v8Headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${v8Token}`, 'content-type': 'application/json', ...extra });

interface StreamEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Reads an event stream to its end; `dropped` when the connection broke before a terminal event. */
async function readStream(res: Response): Promise<{ events: StreamEvent[]; dropped: boolean }> {
  const events: StreamEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: StreamEvent = { data: '' };
        for (const line of block.split('\n')) {
          const [field, ...rest] = line.split(':');
          const value = rest.join(':').replace(/^ /, '');
          if (field === 'id') event.id = value;
          else if (field === 'event') event.event = value;
          else if (field === 'data') event.data += value;
        }
        events.push(event);
      }
    }
  } catch {
    return { events, dropped: true };
  }
  const last = events.at(-1);
  const type = last?.event ?? (last ? (JSON.parse(last.data) as { type?: string }).type : undefined);
  return { events, dropped: !TERMINAL.has(type ?? '') };
}

/**
 * The capabilities a goal may name: "An `unavailable` one is not to be included in goal
 * specifications", and "A `quarantined` capability cannot be invoked".
 */
async function usableCapabilities(): Promise<string[]> {
  const res = await fetch(`${base}/v8/capabilities/search`, { method: 'POST', headers: v8Headers(), body: JSON.stringify({ actionFamily: 'read', purpose: 'apicert sample client', targetType: 'document' }) });
  if (res.status !== 200) {
    await res.arrayBuffer();
    return [];
  }
  const manifests = (await res.json()) as Array<{ capabilityId: string; healthState: string }>;
  if (fault === 'use-unavailable-capability') return manifests.map((m) => m.capabilityId);
  return manifests.filter((m) => m.healthState !== 'unavailable' && m.healthState !== 'quarantined').map((m) => m.capabilityId);
}

/** /v8: check the contract version, pick capabilities, create a mission, follow its events to the end. */
async function v8Mission(): Promise<void> {
  const probe = await fetch(`${base}/v8/coverage`, { headers: v8Headers() });
  await probe.arrayBuffer();
  const contract = probe.headers.get('x-service-contract-version');
  if (contract !== EXPECTED_CONTRACT && fault !== 'ignore-contract-version') {
    console.log(`the gateway announces ${contract}, not ${EXPECTED_CONTRACT}: no missions sent`);
    return;
  }
  const capabilities = await usableCapabilities();
  const created = await fetch(`${base}/v8/missions`, {
    method: 'POST',
    headers: v8Headers({ 'idempotency-key': fault === 'short-mission-key' ? 'mission-key' : newKey() }),
    body: JSON.stringify({ goalSpec: { task: 'apicert scenario succeeds: summarise three short documents', capabilities }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 } }),
  });
  if (created.status !== 202) {
    console.log(`POST /v8/missions answered ${created.status}: no mission to follow`);
    return void (await created.arrayBuffer());
  }
  const mission = (await created.json()) as { runId: string };
  let lastId: string | undefined;
  let resentCursor = false;
  for (let attempt = 0; attempt < 6; attempt++) {
    const res = await fetch(`${base}/v8/missions/${mission.runId}/events`, { headers: v8Headers({ accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }) });
    if (res.status === 409) {
      await res.arrayBuffer();
      // Events rule 1: outside the replay window, re-fetch from the beginning.
      if (fault === 'resume-after-409' && !resentCursor) resentCursor = true;
      else lastId = undefined;
      continue;
    }
    const { events, dropped } = await readStream(res);
    lastId = events.findLast((e) => e.id !== undefined)?.id ?? lastId;
    if (!dropped) return;
  }
}

/** A v1 problem's Retry-After hint, in ms; the seed's 60 s (scaled) when none is given. */
function retryHint(res: Response): number {
  const header = res.headers.get('retry-after');
  if (header !== null && /^\d+$/.test(header)) return fault === 'ignore-retry-after' ? 100 : Number(header) * 1000;
  return fault === 'no-default-hint' && res.status === 429 ? 100 : DEFAULT_HINT_MS;
}

/**
 * Follows a task-mode run's events to its terminal event. Endpoints rule 4: after a dropped
 * connection, read the run back (then resume with Last-Event-ID) before posting again; this client
 * never needs to post again, since the run exists. 'repost' when the fault posts the task again instead.
 */
async function followTask(runId: string): Promise<'done' | 'repost'> {
  let lastId: string | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    const res = await fetch(`${base}/v1/runs/${runId}/events`, { headers: v1Headers({ accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }) });
    if (res.status !== 200) {
      await res.arrayBuffer();
      return 'done';
    }
    const { events, dropped } = await readStream(res);
    lastId = events.findLast((e) => e.id !== undefined)?.id ?? lastId;
    if (!dropped) return 'done';
    if (fault === 'repost-task-after-drop') return 'repost';
    await (await fetch(`${base}/v1/runs/${runId}`, { headers: v1Headers() })).arrayBuffer();
  }
  return 'done';
}

/** /v1 task mode: one task, retried and reconciled the way the Errors rules say, its run followed. */
async function v1Task(): Promise<void> {
  let key = newKey();
  let reposted = false;
  let body: Record<string, unknown> = { mode: 'task', task: { scenario: 'apicert.completes', instruction: 'summarise three short documents' } };
  for (let attempt = 0; attempt < 4; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${base}/v1/execute`, { method: 'POST', headers: v1Headers({ 'idempotency-key': key }), body: JSON.stringify(body) });
    } catch {
      // Ambiguous failure: the state is unknown. Reconcile by re-sending the identical request under its key,
      // after a short back-off as a client should: a re-post within 25 ms of the reset could have been sent
      // before the client could read it, and apicert's client judge then leaves it undecided (inconclusive).
      if (fault === 'new-work-after-reset') key = newKey();
      await sleep(RESET_BACKOFF_MS);
      continue;
    }
    if (res.status === 200) {
      const { run_id } = (await res.json()) as { run_id: string };
      // The fault: the identical task posted again at once after its run's stream broke, the run never read back.
      if ((await followTask(run_id)) === 'repost' && !reposted) {
        reposted = true;
        continue;
      }
      await (await fetch(`${base}/v1/runs/${run_id}`, { headers: v1Headers() })).arrayBuffer();
      return;
    }
    const problem = (await res.json().catch(() => ({}))) as { code?: string };
    if (res.status === 429 || res.status === 503) {
      // Errors rule 3: nothing was accepted, so the same key is safe; wait for the hint first.
      if ((res.status === 429 && fault === 'new-key-after-429') || (res.status === 503 && fault === 'new-key-after-503')) key = newKey();
      await sleep(retryHint(res));
      continue;
    }
    if (res.status === 409 && problem.code === 'conflict') {
      // Errors rule 4: a retry does not fix a 409; new work needs a new key.
      if (fault === 'reuse-conflicted-key') body = { ...body, task: { scenario: 'apicert.completes', instruction: 'summarise three short documents (corrected)' } };
      else key = newKey();
      continue;
    }
    console.error(`POST /v1/execute answered ${res.status} ${problem.code ?? ''}`);
    return;
  }
}

/** A turn body; its `requestId` names one request. */
const turnBody = () =>
  JSON.stringify({
    apiVersion: 'v1',
    requestId: `sample-${randomUUID()}`,
    client: { kind: 'backend', name: 'apicert-sample-client', version: '1.0.0' },
    messages: [{ id: 'msg-1', role: 'user', parts: [{ type: 'text', text: 'Reply with one short sentence.' }] }],
  });

/** /v1 turn mode: a streamed POST; after a drop, read the run back and resume its stream. */
async function v1Turn(): Promise<void> {
  const key = newKey();
  const body = turnBody();
  const post = () => fetch(`${base}/v1/execute`, { method: 'POST', headers: v1Headers({ 'idempotency-key': key, accept: 'text/event-stream' }), body });
  const res = await post();
  if (res.status === 429 && fault === 'fresh-request-after-429') {
    // The fault: the same turn sent again at once, under a new key and with a new requestId.
    await res.arrayBuffer();
    return void (await readStream(await fetch(`${base}/v1/execute`, { method: 'POST', headers: v1Headers({ 'idempotency-key': newKey(), accept: 'text/event-stream' }), body: turnBody() })));
  }
  if (res.status !== 200) return void (await res.arrayBuffer());
  const { events, dropped } = await readStream(res);
  if (!dropped) return;
  if (fault === 'repost-after-drop') return void (await readStream(await post()));
  const runId = events.map((e) => (JSON.parse(e.data) as { run_id?: string }).run_id).find(Boolean);
  if (!runId) return;
  // Endpoints rule 4: read the run back (or resume) before posting again.
  await (await fetch(`${base}/v1/runs/${runId}`, { headers: v1Headers() })).arrayBuffer();
  if (fault === 'new-key-after-readback') {
    await readStream(await fetch(`${base}/v1/execute`, { method: 'POST', headers: v1Headers({ 'idempotency-key': newKey(), accept: 'text/event-stream' }), body }));
    return;
  }
  const lastId = events.findLast((e) => e.id !== undefined)?.id;
  const cursor = fault === 'cursor-ahead' && lastId ? String(Number(lastId) + 5) : lastId;
  await readStream(await fetch(`${base}/v1/runs/${runId}/events`, { headers: v1Headers({ accept: 'text/event-stream', ...(cursor ? { 'last-event-id': cursor } : {}) }) }));
}

await v8Mission();
// The fault posts the turn first, so that the scenario's 429 (on the first POST /v1/execute) falls on the body with a requestId.
if (fault === 'fresh-request-after-429') await v1Turn();
await v1Task();
if (fault !== 'fresh-request-after-429') await v1Turn();
