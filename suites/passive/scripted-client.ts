/**
 * A scripted integration that is not apicert: what a team's own client of both surfaces would do,
 * written with nothing but `fetch` (no apicert module is imported), so its recording shows only what
 * such a client sends. It walks the happy paths of /v1 and /v8 and makes the mistakes clients make:
 * a forgotten key, a reused idempotency key, a plain-http webhook, a malformed body. It reads every
 * answer whole, as a client would, and asserts nothing: the passive judge does the judging.
 */

export interface ScriptedClientOptions {
  /** Where the client sends its requests (apicert's proxy in front of the deployment). */
  baseUrl: string;
  /** A /v1 API key holding runs:read and runs:write. */
  v1Key: string;
  /** A /v1 key allowed to register webhook endpoints. */
  webhookKey: string;
  /** A /v8 token holding missions:read and missions:write. */
  v8Token: string;
  /** The task envelope this integration sends (its own work). */
  task: Record<string, unknown>;
  /** A turn request body of the contract. */
  turn: Record<string, unknown>;
  /** A mission intake body. */
  mission: Record<string, unknown>;
  /** Make the mistakes too (false: the happy paths only). */
  mistakes: boolean;
}

let counter = 0;
/** A fresh idempotency key, 16-128 characters of the allowed alphabet (both surfaces accept it). */
function freshKey(): string {
  counter += 1;
  return `scripted-${Date.now().toString(36)}-${counter.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
}

async function call(base: string, method: string, path: string, init: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.raw !== undefined || init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = init.raw ?? JSON.stringify(init.body);
  }
  // Streams end at their terminal event, so reading the whole body is bounded by the deployment;
  // the timeout bounds a deployment that does not end them.
  const res = await fetch(new URL(path, base), { method, headers, body, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
}

const field = (value: unknown, name: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined);

async function v1HappyPath(o: ScriptedClientOptions): Promise<void> {
  const key = freshKey();
  const task = await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: o.task, headers: { 'idempotency-key': key, accept: 'application/json' } });
  // A client retrying after a timeout sends the same request under the same key.
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: o.task, headers: { 'idempotency-key': key, accept: 'application/json' } });
  const runId = field(task.json, 'run_id');
  if (typeof runId === 'string') {
    await call(o.baseUrl, 'GET', `/v1/runs/${encodeURIComponent(runId)}/events`, { token: o.v1Key, headers: { accept: 'text/event-stream' } });
    await call(o.baseUrl, 'GET', `/v1/runs/${encodeURIComponent(runId)}`, { token: o.v1Key });
  }
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: { ...o.turn, requestId: freshKey() }, headers: { accept: 'text/event-stream', 'x-ai-platform-version': 'v1' } });
  await call(o.baseUrl, 'GET', '/v1/usage', { token: o.v1Key });
  const hook = { url: `https://hooks.example.com/scripted/${freshKey()}`, event_types: ['run.completed'], description: 'scripted integration' };
  await call(o.baseUrl, 'POST', '/v1/webhooks', { token: o.webhookKey, body: hook });
  // A deploy script that runs twice registers its endpoint twice.
  await call(o.baseUrl, 'POST', '/v1/webhooks', { token: o.webhookKey, body: hook });
}

async function v1Mistakes(o: ScriptedClientOptions): Promise<void> {
  // Forgot the key; sent it without its prefix.
  await call(o.baseUrl, 'GET', '/v1/usage');
  await call(o.baseUrl, 'GET', '/v1/usage', { token: o.v1Key.replace(/^service_sk_/, '') });
  // Reused a key for another request, then for the same one again.
  const key = freshKey();
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: o.task, headers: { 'idempotency-key': key } });
  // Edited at the top level ("extra properties allowed"): inside `task` the deployment may refuse it for itself.
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: { ...o.task, note: 'edited' }, headers: { 'idempotency-key': key } });
  // A key that is no Identifier; malformed JSON; a turn with a property the contract does not have.
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: o.task, headers: { 'idempotency-key': `-${freshKey()}` } });
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, raw: '{"mode": "task", "task": ' });
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: { ...o.turn, requestId: freshKey(), temperature: 0.2 }, headers: { accept: 'text/event-stream' } });
  await call(o.baseUrl, 'POST', '/v1/execute', { token: o.v1Key, body: { ...o.task, task: 'do the work' } });
  // Webhook endpoints a client should not register.
  await call(o.baseUrl, 'POST', '/v1/webhooks', { token: o.webhookKey, body: { url: 'http://hooks.example.com/scripted/plain' } });
  await call(o.baseUrl, 'POST', '/v1/webhooks', { token: o.webhookKey, body: { url: 'https://localhost/scripted/hook' } });
  await call(o.baseUrl, 'POST', '/v1/webhooks', { token: o.webhookKey, body: { url: 'https://hooks.example.com:8443/scripted/port' } });
  await call(o.baseUrl, 'GET', '/v1/execute', { token: o.v1Key });
}

async function v8HappyPath(o: ScriptedClientOptions): Promise<void> {
  const created = await call(o.baseUrl, 'POST', '/v8/missions', { token: o.v8Token, body: o.mission, headers: { 'idempotency-key': freshKey() } });
  const runId = field(created.json, 'runId');
  if (typeof runId === 'string') {
    await call(o.baseUrl, 'GET', `/v8/missions/${encodeURIComponent(runId)}/events`, { token: o.v8Token, headers: { accept: 'text/event-stream' } });
    await call(o.baseUrl, 'GET', `/v8/missions/${encodeURIComponent(runId)}`, { token: o.v8Token });
  }
  await call(o.baseUrl, 'GET', '/v8/coverage', { token: o.v8Token });
}

async function v8Mistakes(o: ScriptedClientOptions): Promise<void> {
  await call(o.baseUrl, 'POST', '/v8/missions', { body: o.mission, headers: { 'idempotency-key': freshKey() } });
  await call(o.baseUrl, 'POST', '/v8/missions', { token: o.v8Token, body: { goalSpec: {} }, headers: { 'idempotency-key': freshKey() } });
  await call(o.baseUrl, 'GET', '/v8/missions/00000000-0000-7000-8000-000000000000', { token: o.v8Token });
}

/** Runs the integration once; every request goes to `baseUrl`. */
export async function runScriptedClient(o: ScriptedClientOptions): Promise<void> {
  await v1HappyPath(o);
  await v8HappyPath(o);
  if (!o.mistakes) return;
  await v1Mistakes(o);
  await v8Mistakes(o);
}
