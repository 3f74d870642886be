import { Agent, request, type Dispatcher } from 'undici';
import { Redactor } from '../redact/redactor.ts';
import { TransportError, type EvidenceEntry, type Http, type ProbeRequest, type ProbeResponse, type ReadResult, type StreamRequest, type StreamResponse } from '../rule/index.ts';
import { readEventStream } from '../sse/reader.ts';
import type { RequestBudget } from './budget.ts';
import { clip, curlLine, EVIDENCE_EVENT_LIMIT } from './evidence.ts';

export interface ProbeOptions {
  baseUrl: string;
  redactor: Redactor;
  budget: RequestBudget;
  timeoutMs: number;
  streamTimeoutMs: number;
  streamCloseGraceMs: number;
  dispatcher: Dispatcher;
  maxBodyBytes?: number;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function createDispatcher(): Agent {
  return new Agent({ keepAliveTimeout: 2_000, connections: 64 });
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeTransportError(error: unknown): string {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return [err.code ?? err.cause?.code, err.message ?? err.cause?.message].filter(Boolean).join(': ') || String(error);
}

/**
 * The only way checks talk to a target. Every exchange is kept as redacted evidence with a curl
 * line, every request is counted against the run's budget, and every body read is bounded.
 */
/** How long a stream request waits for the body of an answer that is not an event stream. */
const NON_STREAM_BODY_MS = 2_000;

export class ProbeClient implements Http {
  readonly evidence: EvidenceEntry[] = [];

  private readonly options: ProbeOptions;
  constructor(options: ProbeOptions) {
    this.options = options;
  }

  /** A client for another check: same target, budget and connections, its own evidence. */
  fork(): ProbeClient {
    return new ProbeClient(this.options);
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  record(entry: EvidenceEntry): void {
    this.evidence.push(this.redactEntry(entry));
  }

  /** Passes every kept exchange through the redactor again: after a check learned a new secret. */
  redactAgain(): void {
    for (let i = 0; i < this.evidence.length; i += 1) this.evidence[i] = this.redactEntry(this.evidence[i]!);
  }

  private redactEntry(entry: EvidenceEntry): EvidenceEntry {
    const redactor = this.options.redactor;
    const text = (value: string) => redactor.text(value);
    const out: EvidenceEntry = { ...entry, request: { ...entry.request, url: text(entry.request.url), headers: redactor.headers(entry.request.headers) }, curl: text(entry.curl) };
    if (entry.request.body !== undefined) out.request.body = clip(text(entry.request.body)).text;
    if (entry.response) {
      out.response = { ...entry.response, headers: redactor.headers(entry.response.headers) };
      if (entry.response.body !== undefined) out.response.body = clip(text(entry.response.body)).text;
      if (entry.response.events) out.response.events = entry.response.events.map((e) => ({ ...e, ...(e.id !== undefined ? { id: text(e.id) } : {}), data: text(e.data) }));
    }
    if (entry.error !== undefined) out.error = text(entry.error);
    return out;
  }

  private prepare(req: Omit<ProbeRequest, 'json' | 'rawBody'>, body: string | undefined, extra: Record<string, string>) {
    this.options.budget.take();
    const url = new URL(req.path, this.options.baseUrl).toString();
    const headers: Record<string, string> = { ...extra, ...req.headers };
    if (req.credential) headers.authorization = `Bearer ${req.credential.token}`;
    const redactor = this.options.redactor;
    const redactedHeaders = redactor.headers(headers);
    const redactedBody = body === undefined ? undefined : clip(redactor.text(body)).text;
    const entry: EvidenceEntry = {
      request: { method: req.method, url: redactor.text(url), headers: redactedHeaders },
      durationMs: 0,
      curl: '',
    };
    if (req.label) entry.label = req.label;
    if (redactedBody !== undefined) entry.request.body = redactedBody;
    return { url, headers, entry, redactedHeaders, redactedBody };
  }

  async send(req: ProbeRequest): Promise<ProbeResponse> {
    const body = req.json !== undefined ? JSON.stringify(req.json) : req.rawBody;
    const extra: Record<string, string> = body !== undefined ? { 'content-type': 'application/json' } : {};
    const { url, headers, entry, redactedHeaders, redactedBody } = this.prepare(req, body, extra);
    entry.curl = curlLine(req.method, entry.request.url, redactedHeaders, redactedBody, req.credential?.name);
    this.evidence.push(entry);
    const started = performance.now();
    const timeout = req.timeoutMs ?? this.options.timeoutMs;
    try {
      const res = await request(url, {
        method: req.method,
        headers,
        body,
        dispatcher: this.options.dispatcher,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      const text = await this.readBounded(res.body);
      const responseHeaders = flattenHeaders(res.headers);
      const durationMs = Math.round(performance.now() - started);
      this.options.redactor.noteResponse(req.method, req.path, res.statusCode, [text.text, ...Object.values(responseHeaders)]);
      const clipped = clip(this.options.redactor.text(text.text));
      entry.durationMs = durationMs;
      entry.response = { status: res.statusCode, headers: this.options.redactor.headers(responseHeaders), body: clipped.text };
      if (clipped.truncated || text.truncated) entry.response.bodyTruncated = true;
      return {
        status: res.statusCode,
        headers: responseHeaders,
        text: text.text,
        json: parseJson(text.text),
        contentType: responseHeaders['content-type'] ?? '',
        durationMs,
      };
    } catch (error) {
      entry.durationMs = Math.round(performance.now() - started);
      entry.error = this.options.redactor.text(describeTransportError(error));
      throw new TransportError(`${req.method} ${req.path}: ${entry.error}`);
    }
  }

  /**
   * Reads a body up to the byte bound; with `withinMs`, also only that long: a body that never ends
   * is cut there and what arrived is returned (`truncated`), so no reader waits forever.
   */
  private async readBounded(body: AsyncIterable<Buffer> & { destroy(): void }, withinMs?: number): Promise<{ text: string; truncated: boolean }> {
    const limit = this.options.maxBodyBytes ?? MAX_BODY_BYTES;
    const chunks: Buffer[] = [];
    let size = 0;
    let cut = false;
    const timer = withinMs === undefined ? undefined : setTimeout(() => {
      cut = true;
      body.destroy();
    }, withinMs);
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > limit) {
          body.destroy();
          return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (!cut) throw error;
    } finally {
      clearTimeout(timer);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), truncated: cut };
  }

  /** Opens an event stream and reads it until the server closes it or a bound is reached. */
  async stream(req: StreamRequest): Promise<StreamResponse> {
    const extra: Record<string, string> = { accept: 'text/event-stream' };
    if (req.lastEventId !== undefined) extra['last-event-id'] = req.lastEventId;
    const { url, headers, entry, redactedHeaders } = this.prepare(req, undefined, extra);
    entry.curl = curlLine(req.method, entry.request.url, redactedHeaders, undefined, req.credential?.name, true);
    this.evidence.push(entry);
    const started = performance.now();
    const controller = new AbortController();
    const maxMs = req.maxMs ?? this.options.streamTimeoutMs;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: req.method,
        headers,
        dispatcher: this.options.dispatcher,
        signal: controller.signal,
        headersTimeout: req.timeoutMs ?? this.options.timeoutMs,
        bodyTimeout: 0,
      });
    } catch (error) {
      entry.durationMs = Math.round(performance.now() - started);
      entry.error = this.options.redactor.text(describeTransportError(error));
      throw new TransportError(`${req.method} ${req.path}: ${entry.error}`);
    }
    const responseHeaders = flattenHeaders(res.headers);
    const contentType = responseHeaders['content-type'] ?? '';
    const redactedResponseHeaders = this.options.redactor.headers(responseHeaders);
    if (!contentType.startsWith('text/event-stream')) {
      // Not a stream: the rule judges the content type at once. An error body arrives with its
      // headers; one that never ends is cut after NON_STREAM_BODY_MS, so no reader hangs on it.
      const text = await this.readBounded(res.body, Math.min(NON_STREAM_BODY_MS, req.timeoutMs ?? this.options.timeoutMs));
      redactorNote(this.options.redactor, req, res.statusCode, [text.text, ...Object.values(responseHeaders)]);
      entry.durationMs = Math.round(performance.now() - started);
      entry.response = { status: res.statusCode, headers: redactedResponseHeaders, body: clip(this.options.redactor.text(text.text)).text };
      return { status: res.statusCode, headers: responseHeaders, contentType, events: [], end: 'server', parseErrors: [], text: text.text, json: parseJson(text.text) };
    }
    let read: ReadResult;
    try {
      read = await readEventStream(res.body, {
        maxMs,
        maxBytes: this.options.maxBodyBytes ?? MAX_BODY_BYTES,
        graceMs: req.graceMs ?? this.options.streamCloseGraceMs,
        onEvent: req.onEvent,
        abort: () => controller.abort(),
      });
    } catch (error) {
      entry.durationMs = Math.round(performance.now() - started);
      entry.error = this.options.redactor.text(describeTransportError(error));
      throw new TransportError(`${req.method} ${req.path} (stream): ${entry.error}`);
    }
    entry.durationMs = Math.round(performance.now() - started);
    const redactor = this.options.redactor;
    redactorNote(redactor, req, res.statusCode, [...read.events.flatMap((e) => [e.data, e.id ?? '']), ...Object.values(responseHeaders)]);
    entry.response = {
      status: res.statusCode,
      headers: redactedResponseHeaders,
      events: read.events.slice(0, EVIDENCE_EVENT_LIMIT).map((e) => ({
        ...(e.id !== undefined ? { id: redactor.text(e.id) } : {}),
        ...(e.event !== undefined ? { event: e.event } : {}),
        data: clip(redactor.text(e.data), 1024).text,
      })),
      closedBy: read.end,
    };
    if (read.events.length > EVIDENCE_EVENT_LIMIT) entry.response.eventsTruncated = read.events.length - EVIDENCE_EVENT_LIMIT;
    return { ...read, status: res.statusCode, headers: responseHeaders, contentType };
  }
}

/** Every response's raw text goes past the redactor's sightings before redaction hides a secret in it. */
function redactorNote(redactor: Redactor, req: { method: string; path: string }, status: number, parts: readonly string[]): void {
  redactor.noteResponse(req.method, req.path, status, parts);
}
