import { request, type Dispatcher } from 'undici';
import { TARGET_ISSUED_SESSION, type Redactor } from '../redact/redactor.ts';
import { Journal, linkCopy, rawForm, TransportError, type EvidenceEntry, type Exchange, type Http, type ProbeRequest, type ProbeResponse, type RawRequest, type ReadResult, type StreamRequest, type StreamResponse } from '../rule/index.ts';
import type { Network } from '../profile/network.ts';
import { readEventStream } from '../sse/reader.ts';
import { CloseGraceExpired, ReaderStopped } from './stream-stop.ts';
import { tlsFiles } from './dispatcher.ts';
import { rawBytes, sendRawBytes } from './raw.ts';
import { decodeAnswer, decodeBody, eventData, firstNonJsonEvent, isJsonMediaType, LARGE_TEXT, parseJson, readBody, withUndecoded, type BodyText } from './body.ts';
import { codingsOf, decodable, decodedChunks, notDecoded, type StreamDecoding } from '../util/content-coding.ts';
import { reclaimAboveLimit } from '../util/reclaim.ts';
import type { RequestBudget } from './budget.ts';
import { clip, clipped, curlLine, EVIDENCE_EVENT_LIMIT, EvidenceBudget, tokenVariable } from './evidence.ts';
import { DEFAULT_LIMITS, describeTransportError, type TransportContext } from './transport.ts';

export { closeDispatcher, createDispatcher } from './transport.ts';

import type { RequestPacer } from './pacer.ts';

export interface ProbeOptions {
  baseUrl: string;
  redactor: Redactor;
  budget: RequestBudget;
  /** Headers and idle-per-chunk deadline of one request. */
  timeoutMs: number;
  /** Deadline of one whole request, headers to last byte; at least `timeoutMs`. */
  totalTimeoutMs?: number;
  streamTimeoutMs: number;
  streamCloseGraceMs: number;
  dispatcher: Dispatcher;
  maxBodyBytes?: number;
  maxEvents?: number;
  connectTimeoutMs?: number;
  maxHeaderBytes?: number;
  /** Aborts every request of the run or the check (its deadline, the run deadline, an interrupt). */
  signal?: AbortSignal;
  evidenceBudget?: EvidenceBudget;
  /** Entries already redacted, shared by a run's forks: a recording's exchange shown by many rules is redacted once. */
  redactedEntries?: WeakMap<EvidenceEntry, { generation: number; entry: EvidenceEntry }>;
  /** Headers the profile adds to every request to that URL's surface (a WAF token); a check's own headers win. */
  headersFor?: (url: URL) => Record<string, string>;
  /** `--max-rps`: spaces the run's requests; absent for a rule that sends bursts. */
  pacer?: RequestPacer;
  /** The profile's network settings: raw requests use its TLS files and are not sent through a proxy. */
  network?: Network;
  /** The run's one journal of every exchange (bodies bounded), for the rules that judge the whole run. */
  runJournal?: Journal;
  /**
   * No sentence governs the answers' bodies (a webhook receiver's): a body malformed for its media
   * type stays on the response (`malformed`) for the check to record, and is no finding that fails the
   * rule; a body cut at the cap (`cut`) leaves nothing judged unread, so it makes no rule inconclusive.
   */
  bodiesUngoverned?: boolean;
}

/** Whether requests go through a forward proxy (the profile's, else the environment's): raw requests cannot follow them. */
function proxied(network: Network | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (network?.proxy === 'none') return false;
  return Boolean(network?.proxy ?? env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy);
}

// No body of either API comes near this; a bigger one is cut and what rests on it is inconclusive.
const MAX_BODY_BYTES = 2 * 1024 * 1024;
const MAX_EVENTS = 10_000;

function declaredLength(headers: Record<string, string>): number | undefined {
  const n = Number(headers['content-length']);
  return Number.isSafeInteger(n) ? n : undefined;
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * The only way checks talk to a target. Every exchange is kept as redacted, clipped evidence with a
 * curl line, every request is counted against the run's budget, and every request is bounded in
 * time (connect, headers, idle, total) and bytes, and aborted with the check that sent it.
 */
/** How long a stream request waits for the body of an answer that is not an event stream. */
const NON_STREAM_BODY_MS = 2_000;

export class ProbeClient implements Http {
  readonly evidence: EvidenceEntry[] = [];
  /** This client's exchanges, bounded in count and bytes: what the rule's judgement reads. */
  private readonly journal = new Journal();
  /** Bodies malformed for their media type (invalid UTF-8, JSON that is not JSON): a check reading them cannot pass. */
  readonly findings: string[] = [];
  /** Answers cut at the body cap: what a check concluded from them rests on bytes it never saw. */
  readonly oversized: string[] = [];
  /** Requests this client (one rule's fork) sent: the report sums them per rule family. */
  sent = 0;

  private readonly options: ProbeOptions;
  /** Which evidence entry a response (or a received delivery) came from, so a failing case can name it. */
  private readonly origins = new WeakMap<object, number>();
  private readonly kept: EvidenceBudget;
  private readonly redactedEntries: WeakMap<EvidenceEntry, { generation: number; entry: EvidenceEntry }>;
  constructor(options: ProbeOptions) {
    this.options = options;
    this.kept = options.evidenceBudget ?? new EvidenceBudget();
    this.redactedEntries = options.redactedEntries ?? new WeakMap();
  }

  /** A client for another check: same target, budget and connections, its own evidence and signal. */
  fork(signal?: AbortSignal, how: { unpaced?: boolean; bodiesUngoverned?: boolean } = {}): ProbeClient {
    const { pacer, ...options } = this.options;
    return new ProbeClient({ ...options, evidenceBudget: this.kept, redactedEntries: this.redactedEntries, ...(signal ? { signal } : {}), ...(pacer && !how.unpaced ? { pacer } : {}), ...(how.bodiesUngoverned ? { bodiesUngoverned: true } : {}) });
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  get exchanges(): readonly Exchange[] {
    return this.journal.exchanges;
  }

  /**
   * Completes the exchange in the check's journal, and keeps a copy (bodies cut short) in the run's;
   * a raw request's stays in the check's only (a HAR recorder, inside undici, never sees one either).
   */
  private finish(exchange: Exchange, update: Partial<Exchange>, own = false): void {
    this.journal.complete(exchange, update);
    if (!this.options.runJournal || own) return;
    const { evidence: _own, index: _at, ...copy } = exchange;
    linkCopy(this.options.runJournal.add(copy), exchange);
  }

  /** Opens the journal's exchange of a request as sent; its answer is filled in by `finish`. */
  private journalRequest(req: { method: string; credential: { name: string } | null }, url: string, headers: Record<string, string>, body: string | undefined, at: number): Exchange {
    const target = new URL(url);
    const lower: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
    return this.journal.add({
      startedAt: new Date().toISOString(),
      method: req.method,
      url,
      path: `${target.pathname}${target.search}`,
      requestHeaders: lower,
      ...(body !== undefined ? { requestBody: body } : {}),
      ...(req.credential ? { credential: req.credential.name } : {}),
      responseHeaders: {},
      evidence: at,
    });
  }

  /** The index in `evidence` of the exchange that produced `subject` (a response or a recorded delivery). */
  remainingRequests(): number {
    return this.options.budget.remaining;
  }

  exchangeOf(subject: object): number | undefined {
    return this.origins.get(subject);
  }

  /**
   * Keeps an exchange apicert did not send, redacted, linked to `subject` (the delivery) for failing
   * cases. The same entry recorded again (by another rule of the run) is redacted again only when
   * the redactor learned something since.
   */
  record(entry: EvidenceEntry, subject?: object): number {
    const generation = this.options.redactor.generation;
    let redacted = this.redactedEntries.get(entry);
    if (redacted?.generation !== generation) {
      redacted = { generation, entry: this.redactEntry(entry) };
      this.redactedEntries.set(entry, redacted);
    }
    const index = this.evidence.push(redacted.entry) - 1;
    if (subject) this.origins.set(subject, index);
    return index;
  }

  private link<T extends object>(result: T, at: number): T {
    this.origins.set(result, at);
    return result;
  }

  /** Passes every kept exchange through the redactor again: after a check learned a new secret. Indices stay. */
  redactAgain(): void {
    for (let i = 0; i < this.evidence.length; i += 1) this.evidence[i] = this.redactEntry(this.evidence[i]!);
  }

  private keepText(value: string, limit?: number): string {
    return this.kept.keep(this.options.redactor.text(clip(value, limit).text));
  }

  private redactEntry(entry: EvidenceEntry): EvidenceEntry {
    const redactor = this.options.redactor;
    // The entry's parts are kept (redacted) by the evidence: the redactor may remember what it found in them.
    const text = (value: string) => redactor.evidenceText(value);
    const out: EvidenceEntry = { ...entry, request: { ...entry.request, url: text(entry.request.url), headers: redactor.headers(entry.request.headers) }, curl: redactor.curlText(entry.curl) };
    if (entry.request.body !== undefined) out.request.body = text(clipped(entry.request.body));
    if (entry.response) {
      out.response = { ...entry.response, headers: redactor.headers(entry.response.headers) };
      if (entry.response.body !== undefined) out.response.body = text(clipped(entry.response.body));
      if (entry.response.events) out.response.events = entry.response.events.map((e) => ({ ...e, ...(e.id !== undefined ? { id: text(e.id) } : {}), data: text(clipped(e.data, 1024)) }));
    }
    if (entry.error !== undefined) out.error = text(entry.error);
    return out;
  }

  private limits(timeoutMs: number): TransportContext {
    return {
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_LIMITS.connectTimeoutMs,
      headersTimeoutMs: timeoutMs,
      idleTimeoutMs: timeoutMs,
      totalTimeoutMs: Math.max(this.options.totalTimeoutMs ?? timeoutMs, timeoutMs),
      maxHeaderBytes: this.options.maxHeaderBytes ?? DEFAULT_LIMITS.maxHeaderBytes,
    };
  }

  /** The request's own signal: the check's, and its total deadline. */
  private signalFor(totalMs: number | undefined, own?: AbortSignal): AbortSignal {
    const signals = [this.options.signal, own, totalMs === undefined ? undefined : AbortSignal.timeout(totalMs)].filter((s): s is AbortSignal => s !== undefined);
    return AbortSignal.any(signals);
  }

  /** Every session id the target hands out is a secret of the run from then on. */
  private learnSecrets(headers: Record<string, string>): void {
    const session = headers['mcp-session-id'];
    if (session) this.options.redactor.add(session, TARGET_ISSUED_SESSION);
  }

  private prepare(req: Omit<ProbeRequest, 'json' | 'rawBody'>, body: string | undefined, extra: Record<string, string>) {
    if (this.options.signal?.aborted) throw new TransportError(`${req.method} ${req.path}: not sent (${describeTransportError(undefined, this.limits(this.options.timeoutMs), this.options.signal)})`);
    this.options.budget.take();
    this.sent += 1;
    const target = new URL(req.path, this.options.baseUrl);
    const url = target.toString();
    const headers: Record<string, string> = { ...this.options.headersFor?.(target), ...extra, ...req.headers };
    if (req.credential) headers.authorization = `Bearer ${req.credential.token}`;
    const redactor = this.options.redactor;
    const redactedHeaders = redactor.headers(headers);
    const redactedBody = body === undefined ? undefined : this.keepText(body);
    const entry: EvidenceEntry = {
      request: { method: req.method, url: redactor.text(url), headers: redactedHeaders },
      durationMs: 0,
      curl: '',
    };
    if (req.label) entry.label = req.label;
    if (redactedBody !== undefined) entry.request.body = redactedBody;
    return { url, headers, entry, redactedHeaders, redactedBody };
  }

  private transportFailure(req: { method: string; path: string }, entry: EvidenceEntry, started: number, error: unknown, limits: TransportContext, signal: AbortSignal, what = '', answered?: number): TransportError {
    entry.durationMs = Math.round(performance.now() - started);
    entry.error = this.options.redactor.text(describeTransportError(error, limits, signal));
    const after = answered === undefined ? '' : ` (after answering ${answered})`;
    return new TransportError(`${req.method} ${req.path}${what}: ${entry.error}${after}`);
  }

  private noteMalformed(req: { method: string; path: string }, status: number, contentType: string, body: BodyText, json: unknown): void {
    let problem = body.malformed;
    if (!problem && isJsonMediaType(contentType) && !body.truncated && body.text.trim().length > 0 && json === undefined) problem = `is ${contentType.split(';')[0]} but not JSON`;
    if (!problem && contentType.startsWith('text/event-stream') && !eventDataJudgedByItsRule(req.path)) {
      const bad = firstNonJsonEvent(eventData(body.text));
      if (bad > 0) problem = `is an event stream whose event #${bad} has data that is not JSON`;
    }
    problem = withUndecoded(problem, body);
    if (problem && !this.options.bodiesUngoverned) this.findings.push(`the ${status} answer to ${req.method} ${req.path} ${problem}`);
    if (body.truncated && !this.options.bodiesUngoverned) this.oversized.push(`the ${status} answer to ${req.method} ${req.path} was cut at the ${Math.round((this.options.maxBodyBytes ?? MAX_BODY_BYTES) / 1024 / 1024)} MiB body cap`);
  }

  async send(req: ProbeRequest): Promise<ProbeResponse> {
    await this.options.pacer?.wait(this.options.signal);
    const body = req.json !== undefined ? JSON.stringify(req.json) : req.rawBody;
    const extra: Record<string, string> = body !== undefined ? { 'content-type': 'application/json' } : {};
    const { url, headers, entry, redactedHeaders, redactedBody } = this.prepare(req, body, extra);
    entry.curl = curlLine(req.method, entry.request.url, redactedHeaders, redactedBody, req.credential?.name);
    const at = this.evidence.push(entry) - 1;
    const exchange = this.journalRequest(req, url, headers, body, at);
    const started = performance.now();
    const timeout = req.timeoutMs ?? this.options.timeoutMs;
    const limits = this.limits(timeout);
    const signal = this.signalFor(limits.totalTimeoutMs);
    let res: Dispatcher.ResponseData | undefined;
    try {
      res = await request(url, { method: req.method, headers, body, dispatcher: this.options.dispatcher, headersTimeout: timeout, bodyTimeout: timeout, signal });
      const responseHeaders = flattenHeaders(res.headers);
      this.learnSecrets(responseHeaders);
      const contentType = contentTypeOf(responseHeaders);
      const text = await readBody(res.body, this.options.maxBodyBytes ?? MAX_BODY_BYTES, declaredLength(responseHeaders), contentType, responseHeaders['content-encoding']);
      const json = parseJson(text.text);
      this.noteMalformed(req, res.statusCode, contentType, text, json);
      const durationMs = Math.round(performance.now() - started);
      this.options.redactor.noteResponse(req.method, req.path, res.statusCode, [text.text, ...Object.values(responseHeaders)]);
      entry.durationMs = durationMs;
      entry.response = { status: res.statusCode, headers: this.options.redactor.headers(responseHeaders), body: this.keepText(text.text) };
      if (text.truncated || text.text.length > 4096) entry.response.bodyTruncated = true;
      this.finish(exchange, { status: res.statusCode, responseHeaders, ...keptBody(text), durationMs });
      const answer: ProbeResponse = { status: res.statusCode, headers: responseHeaders, text: text.text, json, contentType, durationMs };
      if (text.truncated) answer.cut = true;
      const malformed = malformedOf(text, contentType, json);
      if (malformed) answer.malformed = malformed;
      return this.link(answer, at);
    } catch (error) {
      res?.body.destroy();
      const failure = this.transportFailure(req, entry, started, error, limits, signal, '', res?.statusCode);
      // Headers that arrived before the body stalled are the answer's, as the streaming paths keep them: rules of the header judge them.
      this.finish(exchange, { ...(res ? { status: res.statusCode, responseHeaders: flattenHeaders(res.headers) } : {}), error: entry.error ?? failure.message, durationMs: entry.durationMs });
      throw failure;
    }
  }

  /** Writes a request byte for byte on its own connection (raw.ts), with the same budget, bounds, redaction and evidence as `send`. */
  async sendRaw(req: RawRequest): Promise<ProbeResponse> {
    // `{origin}` stands for the target's own origin (an absolute-form request-target).
    const bare = req.target.replace('{origin}', '');
    const path = bare.startsWith('/') ? bare : '/';
    const label = { method: req.method, path: req.target };
    if (this.options.signal?.aborted) throw new TransportError(`${req.method} ${req.target}: not sent (the check stopped)`);
    if (proxied(this.options.network)) throw new TransportError(`${req.method} ${req.target}: a raw request is not sent through the profile's proxy`);
    await this.options.pacer?.wait(this.options.signal);
    this.options.budget.take();
    this.sent += 1;
    const url = new URL(path, this.options.baseUrl);
    const added: Record<string, string> = { ...this.options.headersFor?.(url) };
    const placed = placeCredential(req);
    if (req.credential && !req.place) added.Authorization = `Bearer ${req.credential.token}`;
    const bytes = rawBytes({ ...placed, target: placed.target.replace('{origin}', url.origin) }, url.host, added);
    const redactor = this.options.redactor;
    // The evidence names the credential, as curl lines do: the token never reaches the redactor as text.
    const named = req.credential ? (value: string) => value.split(req.credential!.token).join(`$${tokenVariable(req.credential!.name)}`) : (value: string) => value;
    const text = named(bytes.toString('latin1'));
    const headEnd = text.indexOf('\r\n\r\n') === -1 ? text.indexOf('\n\n') : text.indexOf('\r\n\r\n');
    const headLines = (headEnd === -1 ? text : text.slice(0, headEnd)).split(/\r?\n/).slice(1);
    const headers: Record<string, string> = {};
    for (const line of headLines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
    }
    const redactedHeaders = redactor.headers(headers);
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body.toString('latin1') : req.body;
    const entry: EvidenceEntry = { request: { method: req.method, url: redactor.text(named(new URL(placed.target.replace('{origin}', ''), this.options.baseUrl).toString())), headers: redactedHeaders }, durationMs: 0, curl: '' };
    if (req.label) entry.label = req.label;
    if (body !== undefined) entry.request.body = this.keepText(body);
    // curl cannot write most of these forms: the line says so, and the raw head is in the evidence.
    entry.curl = `# raw request (curl cannot send it): ${redactor.text(JSON.stringify(clip(text.slice(0, headEnd === -1 ? undefined : headEnd), 2048).text))}`;
    const at = this.evidence.push(entry) - 1;
    // The journal's request: its head's headers (the last line of a name wins, as a server reads it) and its body's bytes as Latin-1 text.
    const journalHeaders: Record<string, string> = {};
    for (const [name, value] of placed.headers) journalHeaders[name.trim()] = value;
    if (added.Authorization !== undefined) journalHeaders.authorization = added.Authorization;
    const exchange = this.journalRequest(req, url.toString(), journalHeaders, body, at);
    // The request-target as written (a dot segment, a trailing slash): what the judgement reads, not its normalised URL.
    exchange.path = placed.target.replace('{origin}', '');
    exchange.raw = rawForm(req);
    const started = performance.now();
    const limits = this.limits(this.options.timeoutMs);
    try {
      const tls = url.protocol === 'https:' ? await (this.tls ??= tlsFiles(this.options.network?.tls)) : undefined;
      const answer = await sendRawBytes({ url, timeoutMs: limits.totalTimeoutMs, maxBytes: this.options.maxBodyBytes ?? MAX_BODY_BYTES, ...(tls ? { tls } : {}), ...(this.options.signal ? { signal: this.options.signal } : {}) }, bytes);
      this.learnSecrets(answer.headers);
      const contentType = contentTypeOf(answer.headers);
      const decoded = decodeAnswer(answer.body, answer.truncated, contentType, answer.headers['content-encoding'], this.options.maxBodyBytes ?? MAX_BODY_BYTES);
      if (answer.body.length >= LARGE_TEXT || decoded.text.length >= LARGE_TEXT) reclaimAboveLimit();
      const json = parseJson(decoded.text);
      this.noteMalformed(label, answer.status, contentType, decoded, json);
      entry.durationMs = Math.round(performance.now() - started);
      redactor.noteResponse(req.method, path, answer.status, [decoded.text, ...Object.values(answer.headers)]);
      entry.response = { status: answer.status, headers: redactor.headers(answer.headers), body: this.keepText(decoded.text) };
      this.finish(exchange, { status: answer.status, responseHeaders: answer.headers, ...keptBody(decoded), durationMs: entry.durationMs }, true);
      return this.link({ status: answer.status, headers: answer.headers, text: decoded.text, json, contentType, durationMs: entry.durationMs }, at);
    } catch (error) {
      const failure = this.transportFailure(label, entry, started, error, limits, this.options.signal ?? new AbortController().signal);
      this.finish(exchange, { error: entry.error ?? failure.message, durationMs: entry.durationMs }, true);
      throw failure;
    }
  }

  private tls: Promise<Awaited<ReturnType<typeof tlsFiles>>> | undefined;

  /** Opens an event stream (a GET, or a POST whose answer streams) and reads it until the server closes it or a bound is reached. */
  async stream(req: StreamRequest): Promise<StreamResponse> {
    await this.options.pacer?.wait(this.options.signal);
    const body = req.json !== undefined ? JSON.stringify(req.json) : req.rawBody;
    const extra: Record<string, string> = { accept: 'text/event-stream', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
    if (req.lastEventId !== undefined) extra['last-event-id'] = req.lastEventId;
    const { url, headers, entry, redactedHeaders, redactedBody } = this.prepare(req, body, extra);
    entry.curl = curlLine(req.method, entry.request.url, redactedHeaders, redactedBody, req.credential?.name, true);
    const at = this.evidence.push(entry) - 1;
    const exchange = this.journalRequest(req, url, headers, body, at);
    const started = performance.now();
    const controller = new AbortController();
    const maxMs = req.maxMs ?? this.options.streamTimeoutMs;
    const timeout = req.timeoutMs ?? this.options.timeoutMs;
    const limits = this.limits(timeout);
    // The reader bounds the stream's own duration; the signal adds the check's deadline and the reader's abort.
    const signal = this.signalFor(undefined, controller.signal);
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, { method: req.method, headers, body, dispatcher: this.options.dispatcher, signal, headersTimeout: timeout, bodyTimeout: 0 });
    } catch (error) {
      const failure = this.transportFailure(req, entry, started, error, limits, signal);
      this.finish(exchange, { error: entry.error ?? failure.message, durationMs: entry.durationMs });
      throw failure;
    }
    const responseHeaders = flattenHeaders(res.headers);
    this.learnSecrets(responseHeaders);
    const contentType = contentTypeOf(responseHeaders);
    const redactedResponseHeaders = this.options.redactor.headers(responseHeaders);
    if (!contentType.startsWith('text/event-stream')) {
      // Not a stream: the rule judges the content type at once. An error body arrives with its
      // headers; one that never ends is cut after NON_STREAM_BODY_MS, so no reader hangs on it. A
      // POST that may answer either way (MCP) gets the request timeout for its JSON body, as send() does.
      let text;
      let cut = false;
      const deadline = setTimeout(() => {
        cut = true;
        res.body.destroy();
      }, Math.min(body === undefined ? NON_STREAM_BODY_MS : timeout, limits.totalTimeoutMs));
      try {
        text = await readBody(res.body, this.options.maxBodyBytes ?? MAX_BODY_BYTES, declaredLength(responseHeaders), contentType, responseHeaders['content-encoding']);
      } catch (error) {
        res.body.destroy();
        if (!cut) {
          const failure = this.transportFailure(req, entry, started, error, limits, signal, ' (body)', res.statusCode);
          this.finish(exchange, { status: res.statusCode, responseHeaders, error: entry.error ?? failure.message, durationMs: entry.durationMs });
          throw failure;
        }
        text = decodeBody(Buffer.alloc(0), true, contentType);
      } finally {
        clearTimeout(deadline);
      }
      this.options.redactor.noteResponse(req.method, req.path, res.statusCode, [text.text, ...Object.values(responseHeaders)]);
      const json = parseJson(text.text);
      this.noteMalformed(req, res.statusCode, contentType, text, json);
      entry.durationMs = Math.round(performance.now() - started);
      entry.response = { status: res.statusCode, headers: redactedResponseHeaders, body: this.keepText(text.text) };
      const malformed = malformedOf(text, contentType, json);
      this.finish(exchange, { status: res.statusCode, responseHeaders, ...keptBody(text), durationMs: entry.durationMs });
      return this.link({ status: res.statusCode, headers: responseHeaders, contentType, events: [], end: 'server', parseErrors: [], text: text.text, json, ...(malformed ? { malformed } : {}) }, at);
    }
    let read: ReadResult;
    const maxBytes = this.options.maxBodyBytes ?? MAX_BODY_BYTES;
    // A stream under a content coding is decoded as it arrives (RFC 9110 §12.5.3 lets a server use any).
    const decoding: StreamDecoding = {};
    const codings = codingsOf(responseHeaders['content-encoding']);
    const undecodable = codings.find((c) => !decodable(c));
    if (undecodable !== undefined) decoding.undecodable = `apicert cannot decode ${JSON.stringify(undecodable.slice(0, 40))}`;
    const source = codings.length > 0 && undecodable === undefined ? decodedChunks(res.body, codings, maxBytes, decoding) : res.body;
    const graceMs = req.graceMs ?? this.options.streamCloseGraceMs;
    try {
      read = await readEventStream(source, {
        maxMs,
        maxBytes,
        maxEvents: this.options.maxEvents ?? MAX_EVENTS,
        graceMs,
        onEvent: req.onEvent,
        // Why the reader stopped is told to the recorder below the client (stream-stop.ts), so a recording says it as the journal does.
        abort: (end) => controller.abort(end === 'grace-expired' ? new CloseGraceExpired(graceMs) : end === 'server' ? undefined : new ReaderStopped(end)),
        keepUnterminated: req.keepUnterminated ?? false,
      });
    } catch (error) {
      res.body.destroy();
      const failure = this.transportFailure(req, entry, started, error, limits, signal, ' (stream)', res.statusCode);
      this.finish(exchange, { status: res.statusCode, responseHeaders, error: entry.error ?? failure.message, durationMs: entry.durationMs });
      throw failure;
    }
    // The decoder stopped reading (a cap, bytes that do not decode): the connection is dropped, and a cap is the byte limit.
    if (decoding.cut || (decoding.undecodable && undecodable === undefined)) controller.abort(decoding.cut ? new ReaderStopped('byte-limit') : undefined);
    if (decoding.cut && read.end === 'server') read = { ...read, end: 'byte-limit' };
    const undecoded = decoding.undecodable === undefined ? undefined : notDecoded(responseHeaders['content-encoding'], decoding.undecodable);
    // Bytes that stop decoding midway leave the rest of the stream unread: malformed, as bytes that are not UTF-8 are.
    const broken = undecodable === undefined ? undecoded : undefined;
    const streamProblem = read.invalidUtf8 ? withUndecoded('is an event stream that is not valid UTF-8', undecoded ? { undecoded } : {}) : broken ? `is an event stream: ${broken}` : undefined;
    if (read.invalidUtf8) this.findings.push(`the event stream answering ${req.method} ${req.path} is not valid UTF-8${undecoded ? `: ${undecoded}` : ''}`);
    else if (broken) this.findings.push(`the event stream answering ${req.method} ${req.path} stopped: ${broken}`);
    // Both APIs and MCP carry a JSON document in every event's data.
    const notJson = eventDataJudgedByItsRule(req.path) ? 0 : firstNonJsonEvent(read.events.map((e) => e.data));
    if (notJson > 0) this.findings.push(`event #${notJson} of the stream answering ${req.method} ${req.path} has data that is not JSON`);
    entry.durationMs = Math.round(performance.now() - started);
    this.options.redactor.noteResponse(req.method, req.path, res.statusCode, [...read.events.flatMap((e) => [e.data, e.id ?? '']), ...Object.values(responseHeaders)]);
    entry.response = {
      status: res.statusCode,
      headers: redactedResponseHeaders,
      events: read.events.slice(0, EVIDENCE_EVENT_LIMIT).map((e) => ({
        ...(e.id !== undefined ? { id: this.keepText(e.id, 256) } : {}),
        ...(e.event !== undefined ? { event: this.keepText(e.event, 256) } : {}),
        data: this.keepText(e.data, 1024),
      })),
      closedBy: read.end,
    };
    if (read.events.length > EVIDENCE_EVENT_LIMIT) entry.response.eventsTruncated = read.events.length - EVIDENCE_EVENT_LIMIT;
    // A stream cut at a bound is judged on nothing it lacks: only its first events are kept, and it says it was cut.
    const cutShort = read.end === 'byte-limit' || read.end === 'event-limit';
    this.finish(exchange, { status: res.statusCode, responseHeaders, events: cutShort ? read.events.slice(0, EVIDENCE_EVENT_LIMIT) : read.events, streamEnd: read.end, ...(read.end === 'grace-expired' ? { closeGraceMs: graceMs } : {}), ...(cutShort ? { responseBodyTruncated: true } : {}), durationMs: entry.durationMs });
    return this.link({ ...read, status: res.statusCode, headers: responseHeaders, contentType, ...(streamProblem ? { malformed: streamProblem } : {}) }, at);
  }
}

/** A raw request with its credential placed where `place` says (a header line, the query, a cookie). */
function placeCredential(req: RawRequest): RawRequest {
  const token = req.credential?.token;
  const place = req.place;
  if (token === undefined || !place) return req;
  if ('header' in place) return { ...req, headers: [...req.headers, [place.header, `${place.before ?? 'Bearer '}${token}${place.after ?? ''}`]] };
  if ('cookie' in place) return { ...req, headers: [...req.headers, ['Cookie', `${place.cookie}=${token}`]] };
  return { ...req, target: `${req.target}${req.target.includes('?') ? '&' : '?'}${place.query}=${encodeURIComponent(token)}` };
}

/**
 * Whether the JSON of the event data of the stream at `path` is no finding of every reader: a mission
 * event stream (v8 Events: "`data` | JSON payload specific to the type"), which v8.missions.events.shape
 * judges, in a recording too; and a /v1 run stream (a turn answer of `/v1/execute` or `/v1/chat`,
 * `GET /v1/runs/{id}/events`), whose data no sentence makes JSON ("Event kinds beyond
 * `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.";
 * `request.accepted` "carries boolean `replayed`", which v1.execute.turn.accepted-event judges).
 * There, data that is not JSON fails no reader: the rules reading the stream read what they need
 * of it (an event whose data they cannot read, they lack). MCP's streams carry JSON-RPC messages,
 * so their event data stays every reader's finding.
 */
function eventDataJudgedByItsRule(path: string): boolean {
  return /\/v8\/missions\/[^/?#]+\/events(?:[?#]|$)/.test(path) || /\/v1\/(?:execute|chat|runs\/[^/?#]+\/events)(?:[?#]|$)/.test(path);
}

/** Why a body is broken for its media type, or undefined: invalid UTF-8, or a JSON media type whose body is not JSON. */
function malformedOf(text: BodyText, contentType: string, json: unknown): string | undefined {
  return withUndecoded(text.malformed ?? (isJsonMediaType(contentType) && !text.truncated && text.text.trim().length > 0 && json === undefined ? `is ${contentType.split(';')[0]} but not JSON` : undefined), text);
}

/** What cut answers keep in the journal: a body cut at the cap is judged on nothing it lacks, so a prefix is all a reason needs. */
const CUT_BODY_PREFIX = 4096;

/** The journal's copy of a body: whole, or a short prefix marked cut when the probe cut it at its cap. */
function keptBody(text: { text: string; truncated: boolean }): { responseBody: string; responseBodyTruncated?: true } {
  // Copied out (a slice of a string keeps the whole string it was cut from alive).
  return text.truncated ? { responseBody: Buffer.from(text.text.slice(0, CUT_BODY_PREFIX), 'utf8').toString('utf8'), responseBodyTruncated: true } : { responseBody: text.text };
}

/** Media types and their parameters' names are case-insensitive (RFC 9110, 8.3.1): checks compare lowercase. */
function contentTypeOf(headers: Readonly<Record<string, string | undefined>>): string {
  return (headers['content-type'] ?? '').toLowerCase();
}
