/**
 * The server a client under test talks to during `judge-client`: it records every request, applies
 * the active scenario's adversity, and serves the rest from the reference fake behind it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent, request } from 'undici';
import type { RunningFake } from '../fake/server.ts';
import { readBody } from '../fake/http.ts';
import { V1Responder } from '../fake/v1/respond.ts';
import { V8Responder } from '../fake/v8/respond.ts';
import { isRecord, parseJson } from '../util/json.ts';
import { isTaskExecute, OTHER_GATEWAY_VERSION, type Adversity, type Scenario, type ScenarioSettings } from './scenarios.ts';
import { boundedCopy, RECORDED_BYTES_LIMIT, RECORDED_EXCHANGE_LIMIT, recordableHeaders, recordBody, type RecordedExchange } from './session.ts';

/** No relayed stream outlives this, so a mission that never ends cannot hold a scenario open. */
const MAX_STREAM_MS = 30_000;
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

export interface ActiveScenario {
  scenario: Scenario;
  settings: ScenarioSettings;
  startedAt: number;
  fired: Set<string>;
  /** The scenario's first requests, up to the record's bounds: always a prefix of what the client sent. */
  exchanges: RecordedExchange[];
  /** Requests that came once the record was full: counted, served, not kept. */
  dropped: number;
  /** What the kept exchanges hold, roughly in characters, against RECORDED_BYTES_LIMIT. */
  recordedBytes: number;
  /** Set on every request, so the judge can tell when the client went quiet. */
  lastRequestAt: number;
  /** The run ids the answers to the scenario's task-mode POST /v1/execute carried (ScenarioMemory). */
  taskRuns: Set<string>;
}

export interface Front {
  baseUrl: string;
  /** Starts recording a new scenario; the previous one's record stays with its caller. */
  begin(scenario: Scenario, settings: ScenarioSettings): ActiveScenario;
  end(): void;
  close(): Promise<void>;
}

function forwardHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function responseHeaders(raw: Record<string, string | string[] | undefined>, contractVersion: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (contractVersion !== undefined && out['x-service-contract-version'] !== undefined) out['x-service-contract-version'] = contractVersion;
  // The coverage body may be rewritten (coverageFor), so its length is left to the relay.
  if (contractVersion !== undefined) delete out['content-length'];
  return out;
}

/**
 * The coverage report as a gateway of another contract version would send it: the seed names its
 * `contractVersion` field as a carrier of the contract identifier, besides the header, and
 * `gatewayVersion` beside it. Any other body is relayed as it came.
 */
function coverageFor(path: string, text: string, contractVersion: string | undefined): string {
  if (contractVersion === undefined || path !== '/v8/coverage') return text;
  const parsed = parseJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) return text;
  const body: Record<string, unknown> = { ...parsed.value };
  if (typeof body.contractVersion === 'string') body.contractVersion = contractVersion;
  if (typeof body.gatewayVersion === 'string') body.gatewayVersion = OTHER_GATEWAY_VERSION;
  return JSON.stringify(body);
}

/**
 * Runs `write` and keeps what it put on the wire: a response written with writeHead(status,
 * headers) keeps its headers out of getHeader's reach, so they are read as they are passed.
 */
function sentBy(res: ServerResponse, write: () => void): { headers: Record<string, string>; body: string } {
  const sent = { headers: {} as Record<string, string>, body: '' };
  const writeHead = res.writeHead;
  const end = res.end;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const headers = args.find((a): a is Record<string, unknown> => isRecord(a));
    for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) sent.headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    const chunk = args[0];
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) sent.body = boundedCopy(chunk.toString(), RECORDED_RESPONSE_LIMIT);
    return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['end'];
  try {
    write();
  } finally {
    res.writeHead = writeHead;
    res.end = end;
  }
  return sent;
}

/** Calls `onEvent` for each complete event block in `text` with where it ends; returns where the last one ends. */
function scanEvents(text: string, onEvent: (id: string | undefined, runId: string | undefined, end: number) => void): number {
  let consumed = 0;
  for (;;) {
    const end = text.indexOf('\n\n', consumed);
    if (end === -1) return consumed;
    const block = text.slice(consumed, end);
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    const data = parseJson(block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n'));
    consumed = end + 2;
    onEvent(id, data.ok ? runIdIn(data.value) : undefined, consumed);
  }
}

function runIdIn(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const id = value.run_id ?? value.runId;
  return typeof id === 'string' ? id : undefined;
}

function runIdOfText(text: string): string | undefined {
  const parsed = parseJson(text);
  return parsed.ok ? runIdIn(parsed.value) : undefined;
}

/** What a response body keeps (a problem, a task's run_id): enough for the evidence. */
const RECORDED_RESPONSE_LIMIT = 4096;

/** A kept exchange's weight against the byte bound; the response body it may still get is counted in advance. */
function recordedSize(ex: RecordedExchange): number {
  let size = ex.path.length + ex.body.length + RECORDED_RESPONSE_LIMIT;
  for (const [name, value] of Object.entries(ex.headers)) size += name.length + value.length;
  return size;
}

/**
 * Keeps `ex` while the record has room. Once one request is dropped every later one is too, so the
 * record stays an exact prefix: a rule that finds what it looks for in it judges the same as on
 * the whole log, and one that finds nothing knows it may be among the dropped.
 */
function keep(scenario: ActiveScenario, ex: RecordedExchange): void {
  const size = recordedSize(ex);
  if (scenario.dropped > 0 || scenario.exchanges.length >= RECORDED_EXCHANGE_LIMIT || scenario.recordedBytes + size > RECORDED_BYTES_LIMIT) {
    scenario.dropped += 1;
    return;
  }
  ex.index = scenario.exchanges.length;
  scenario.recordedBytes += size;
  scenario.exchanges.push(ex);
}

export async function startFront(options: { fake: RunningFake; port?: number }): Promise<Front> {
  const agent = new Agent({ keepAliveTimeout: 1_000, connections: 32 });
  const v1 = new V1Responder(options.fake.context);
  const v8 = new V8Responder(options.fake.context);
  let active: ActiveScenario | undefined;
  /**
   * Each accepted connection, when it opened and how many requests it carried: a request that
   * arrives after an answer on a connection opened before it, as its first, was under way already.
   */
  const connections = new WeakMap<Socket, { id: number; openedAt: number; requests: number }>();
  let connectionCount = 0;

  const refuse = (res: ServerResponse, a: Extract<Adversity, { kind: 'refuse' }>): { headers: Record<string, string>; body: string } => {
    const headers: Record<string, string> = a.retryAfterSeconds !== undefined ? { 'retry-after': String(a.retryAfterSeconds) } : {};
    return sentBy(res, () => {
      if (a.surface === 'v1') {
        v1.problem(res, a.status, a.code as Parameters<V1Responder['problem']>[2], { detail: a.detail, retryable: a.status !== 409, ...(a.retryAfterMs !== undefined ? { retryAfterMs: a.retryAfterMs } : {}), headers });
      } else {
        v8.problem(res, a.status, a.code, a.detail);
      }
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const scenario = active;
    const now = () => Math.round(performance.now() - (scenario?.startedAt ?? 0));
    const arrivedAt = now();
    const conn = connections.get(req.socket);
    if (conn) conn.requests += 1;
    const onConnection = conn ? { connection: conn.id, connectedAt: Math.round(conn.openedAt - (scenario?.startedAt ?? 0)), onConnection: conn.requests } : {};
    const rawUrl = req.url ?? '/';
    const body = await readBody(req);
    const q = rawUrl.indexOf('?');
    const incoming = { method: req.method ?? 'GET', path: q === -1 ? rawUrl : rawUrl.slice(0, q), headers: recordableHeaders(req.headers), body };
    const adversity: Adversity = scenario ? scenario.scenario.decide(incoming, scenario.fired, scenario.settings, { taskRuns: scenario.taskRuns }) : { kind: 'serve' };
    const ex: RecordedExchange = { index: 0, at: arrivedAt, ...onConnection, method: incoming.method, path: rawUrl, headers: incoming.headers, ...recordBody(body) };
    const learn = () => {
      if (scenario && ex.runId !== undefined && isTaskExecute(incoming)) scenario.taskRuns.add(ex.runId);
    };
    if (scenario) {
      scenario.lastRequestAt = performance.now();
      keep(scenario, ex);
    }
    if (adversity.kind === 'refuse') {
      const sent = refuse(res, adversity);
      ex.responseHeaders = sent.headers;
      ex.responseBody = sent.body;
      ex.status = adversity.status;
      ex.respondedAt = now();
      ex.adversity = `answered ${adversity.status} ${adversity.code}${adversity.retryAfterSeconds !== undefined ? ` with Retry-After: ${adversity.retryAfterSeconds}` : ' without Retry-After'}`;
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), MAX_STREAM_MS);
    try {
      const upstream = await request(new URL(rawUrl, options.fake.baseUrl), {
        method: incoming.method as 'GET',
        headers: forwardHeaders(req),
        body: body.length > 0 ? body : undefined,
        dispatcher: agent,
        signal: controller.signal,
      });
      ex.status = upstream.statusCode;
      const contractVersion = adversity.kind === 'serve' ? adversity.contractVersion : undefined;
      ex.responseHeaders = responseHeaders(upstream.headers, contractVersion);
      const isStream = (ex.responseHeaders['content-type'] ?? '').startsWith('text/event-stream');
      if (adversity.kind === 'reset-after-accepted') {
        if (isStream) controller.abort();
        else ex.runId = runIdOfText(await upstream.body.text());
        learn();
        ex.respondedAt = now();
        ex.adversity = `connection reset after the request was accepted upstream (HTTP ${upstream.statusCode})`;
        res.socket?.resetAndDestroy();
        return;
      }
      // A connection about to be cut is never offered for reuse, so the cut hits only this exchange.
      res.writeHead(upstream.statusCode, adversity.kind === 'drop-after-events' ? { ...ex.responseHeaders, connection: 'close' } : ex.responseHeaders);
      if (!isStream) {
        const text = coverageFor(incoming.path, await upstream.body.text(), contractVersion);
        ex.responseBody = boundedCopy(text, RECORDED_RESPONSE_LIMIT);
        ex.runId = runIdOfText(text);
        learn();
        res.end(text);
        ex.respondedAt = now();
        return;
      }
      const dropAfter = adversity.kind === 'drop-after-events' ? adversity.events : Infinity;
      ex.eventIds = [];
      let relayed = 0;
      let pending = '';
      // A chunk may end inside a multi-byte character: decode as one stream.
      const decoder = new TextDecoder();
      for await (const chunk of upstream.body) {
        pending += decoder.decode(chunk as Buffer, { stream: true });
        let cutAt: number | undefined;
        const consumed = scanEvents(pending, (id, runId, end) => {
          if (relayed >= dropAfter) return;
          relayed += 1;
          if (id !== undefined) ex.eventIds!.push(id);
          ex.runId ??= runId;
          if (relayed === dropAfter) cutAt = end;
        });
        if (cutAt !== undefined) {
          ex.adversity = `stream cut after ${dropAfter} event(s)`;
          controller.abort();
          // Cut only once the relayed events have left: destroying first would discard them unsent.
          await new Promise<void>((resolve) => res.write(pending.slice(0, cutAt), () => resolve()));
          ex.respondedAt = now();
          res.socket?.destroy();
          return;
        }
        res.write(pending.slice(0, consumed));
        pending = pending.slice(consumed);
      }
      res.end(pending);
      ex.respondedAt = now();
    } finally {
      clearTimeout(timer);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  server.on('connection', (socket: Socket) => {
    connectionCount += 1;
    connections.set(socket, { id: connectionCount, openedAt: performance.now(), requests: 0 });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    begin(scenario, settings) {
      active = { scenario, settings, startedAt: performance.now(), fired: new Set(), exchanges: [], dropped: 0, recordedBytes: 0, lastRequestAt: 0, taskRuns: new Set() };
      return active;
    },
    end() {
      active = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => void agent.close().then(() => resolve()));
      }),
  };
}
