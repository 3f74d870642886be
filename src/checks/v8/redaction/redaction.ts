/** "Sensitive values are redacted": canaries planted in every input that may flow back, then searched for. */
import { type CheckContext, section, type ProbeResponse, type StreamResponse } from '../../../rule/index.ts';
import { createMission, fixture, followEvents, getMission, newKey, writer, MISSIONS } from '../support/missions.ts';
import { capabilitySearchBody, getTrace, PATHS, queryMemory, searchCapabilities } from '../support/read.ts';
import { stepTraces } from '../../../traffic/trace-naming.ts';
import { CanarySet, redactionMarkers, type Sighting } from './canaries.ts';
import { admitted, setupSent, stopIfLimited } from '../support/limiter.ts';

/** Field names that say "secret" whatever the value: what common practice and the seeds name sensitive. */
const SENSITIVE_FIELD = /(password|passphrase|secret|token|api[-_]?key|private[-_]?key|credentials?|authorization|cookie)$/i;

/** Whether a canary sat under a field named sensitive (`goalSpec.apiKey`, `signal payload.authorization`). */
function namedSensitive(plantedAt: string): boolean {
  return SENSITIVE_FIELD.test(plantedAt.split(/[.\s]/).filter(Boolean).at(-1) ?? '');
}

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:capabilities:read', 'v8:holding:memory:read', 'v8:holding:missions:write+missions:read', 'v8:holding:traces:read'], fixtures: ['v8.missions.succeeds'] } });

/** A read the per-principal rate limit refused again after the wait it asked for: it shows nothing of what the target echoes. */
interface Refused {
  where: string;
  /** An event stream or a trace read: what the traces the rule reads come from. */
  ofTraces: boolean;
  res: { status: number };
}

/** Everything read back in one run of the check, scanned as it arrives. */
class Collector {
  /** Each with the response or stream it came back in, the exchange that decides its case. */
  readonly sightings: Array<Sighting & { from: object }> = [];
  readonly markers = new Set<string>();
  readonly refused: Refused[] = [];
  scanned = 0;
  private readonly canaries: CanarySet;
  constructor(canaries: CanarySet) {
    this.canaries = canaries;
  }

  // A 429 body is scanned too: a canary in it has left the gateway as any other answer's would.
  response(where: string, res: ProbeResponse, ofTraces = false): ProbeResponse {
    if (res.status === 429) this.refused.push({ where, ofTraces, res });
    this.body(where, res.text, res);
    return res;
  }

  stream(where: string, res: StreamResponse): StreamResponse {
    if (res.status === 429) this.refused.push({ where, ofTraces: true, res });
    if (res.text !== undefined) this.body(where, res.text, res);
    for (const e of res.events) this.body(`${where}, event ${e.event ?? 'message'}${e.id ? ` (id ${e.id})` : ''}`, e.data, res);
    return res;
  }

  private body(where: string, text: string, from: object): void {
    this.scanned += 1;
    this.sightings.push(...this.canaries.scan(where, text).map((s) => ({ ...s, from })));
    for (const m of redactionMarkers(text)) this.markers.add(m);
  }
}

/** Reads the traces the step events name; returns how many were answered (a 429 shows nothing of a trace). */
async function readTraces(ctx: CheckContext, seen: Collector, events: StreamResponse['events'], mission: string): Promise<number> {
  let read = 0;
  for (const t of stepTraces(events)) {
    const res = seen.response(`GET ${PATHS.traces}/${t.traceId} (${mission} mission)`, await admitted(ctx, () => getTrace(ctx, t.traceId, `read trace ${t.traceId}`)), true);
    if (res.status !== 429) read += 1;
  }
  return read;
}

/** Signals a waiting mission with canary payloads and reads back its events and traces; returns the traces read. */
async function plantInSignals(ctx: CheckContext, c: CanarySet, seen: Collector): Promise<number> {
  const credential = writer(ctx);
  const waiting = await createMission(ctx, 'waits');
  const events = `${MISSIONS}/${waiting.runId}/events`;
  // Bounded: a waiting mission's stream stays open, so it is dropped once a step has begun.
  const untilStep = await admitted(ctx, () =>
    ctx.http.stream({
      method: 'GET',
      path: events,
      credential,
      label: 'wait for the first step of the waiting mission',
      maxMs: 5_000,
      onEvent: (e) => (e.event?.startsWith('mission.step.') ? 'disconnect' : 'continue'),
    }),
  );
  seen.stream(`GET ${MISSIONS}/{runId}/events (waiting mission)`, untilStep);
  const payloads: unknown[] = [
    { decision: 'approve', token: c.plant('secret-field', 'signal payload.token'), authorization: c.plant('bearer', 'signal payload.authorization'), note: c.plant('free-text', 'signal payload.note') },
    c.plant('private-key', 'signal payload (a whole string)'),
  ];
  for (const payload of payloads) {
    const key = newKey();
    seen.response(
      `POST ${MISSIONS}/{runId}/signals`,
      await admitted(ctx, () => ctx.http.send({ method: 'POST', path: `${MISSIONS}/${waiting.runId}/signals`, credential, headers: { 'idempotency-key': key }, json: { signal: 'apicert.canary', payload }, label: 'signal with canaries' })),
    );
  }
  // Whatever the mission emitted after the signals (a target may trace them in a later step).
  const later: Parameters<typeof ctx.http.stream>[0] = { method: 'GET', path: events, credential, label: 'read the waiting mission events after the signals', maxMs: 750 };
  if (untilStep.lastEventId !== undefined) later.lastEventId = untilStep.lastEventId;
  const replay = seen.stream(`GET ${MISSIONS}/{runId}/events (waiting mission, after signals)`, await admitted(ctx, () => ctx.http.stream(later)));
  const traces = await readTraces(ctx, seen, [...untilStep.events, ...replay.events], 'waiting');
  const cancelKey = newKey();
  seen.response(
    `POST ${MISSIONS}/{runId}/cancel`,
    await admitted(ctx, () => ctx.http.send({ method: 'POST', path: `${MISSIONS}/${waiting.runId}/cancel`, credential, headers: { 'idempotency-key': cancelKey }, label: 'cancel the waiting mission (clean-up)' })),
  );
  return traces;
}

/** What the check read back that decides whether it examined the most likely echo of a goal. */
interface ReadBack {
  /** Traces answered (not refused by the rate limit). */
  traces: number;
  goalStream: StreamResponse;
}

/** Plants canaries in a goal, signal payloads, memory queries and a capability search, and reads back what they may flow into. */
async function plantAndReadBack(ctx: CheckContext, c: CanarySet, seen: Collector): Promise<ReadBack> {
  const credential = writer(ctx);

  // Goals: fields named like secrets and whole values shaped like credentials, forwarded "intact" to the agent.
  const base = fixture(ctx, 'succeeds');
  const goalSpec = {
    ...base.goalSpec,
    apiKey: c.plant('secret-field', 'goalSpec.apiKey'),
    credentials: { password: c.plant('secret-field', 'goalSpec.credentials.password') },
    contact: c.plant('bearer', 'goalSpec.contact'),
    attachment: c.plant('private-key', 'goalSpec.attachment'),
    notes: c.plant('free-text', 'goalSpec.notes'),
  };
  const createKey = newKey();
  const created = seen.response('POST /v8/missions', await setupSent(ctx, 'creating the "succeeds" mission with canaries in its goal', () => ctx.http.send({ method: 'POST', path: MISSIONS, credential, headers: { 'idempotency-key': createKey }, json: { ...base, goalSpec }, label: 'create a mission with canaries in its goal' })));
  if (created.status !== 202) ctx.inconclusive(`setup failed: creating the "succeeds" mission with extra goalSpec fields answered ${created.status}`);
  const runId: unknown = (created.json as { runId?: unknown } | undefined)?.runId;
  if (typeof runId !== 'string') return ctx.inconclusive('setup failed: the create response has no runId');
  // Limits: "A per-principal rate limit exists (`429`). Its numeric values: not shown." Each read waits out one 429.
  const goalStream = seen.stream(`GET ${MISSIONS}/{runId}/events`, await admitted(ctx, () => followEvents(ctx, runId, { label: 'follow the canary mission' })));
  seen.response(`GET ${MISSIONS}/{runId}`, await admitted(ctx, () => getMission(ctx, runId, credential, 'read the canary mission')));
  let traces = await readTraces(ctx, seen, goalStream.events, 'canary goal');

  // Signals: a payload with secret-named fields and a payload that is a whole private key.
  if (ctx.profile.fixtures.v8.missions.waits) traces += await plantInSignals(ctx, c, seen);
  else ctx.observe('signals not probed', 'the profile has no fixtures.v8.missions.waits to signal');

  // Memory: a whole API-key-shaped queryText with the permitted purpose, a free-text one, and a bearer-shaped purpose.
  const memory = ctx.profile.fixtures.v8.memory;
  if (memory.compartment && memory.purpose) {
    const query = { compartment: memory.compartment, purpose: memory.purpose, classes: memory.classes ?? ['note'] };
    // Planted before the send: a resend after a 429 carries the same canary.
    const apiKey = { ...query, queryText: c.plant('api-key', 'memory queryText') };
    const freeText = { ...query, queryText: c.plant('free-text', 'memory queryText (free text)') };
    const bearerPurpose = { ...query, queryText: 'apicert', purpose: c.plant('bearer', 'memory purpose') };
    seen.response(PATHS.memory, await admitted(ctx, () => queryMemory(ctx, apiKey, 'memory query with an API-key canary')));
    seen.response(PATHS.memory, await admitted(ctx, () => queryMemory(ctx, freeText, 'memory query with a free-text canary')));
    seen.response(`${PATHS.memory} (refused purpose)`, await admitted(ctx, () => queryMemory(ctx, bearerPurpose, 'memory query with a bearer canary as purpose')));
  } else {
    ctx.observe('memory not probed', 'no fixtures.v8.memory compartment and purpose');
  }

  // Capability search: a bearer-shaped purpose.
  seen.response(PATHS.capabilities, await searchCapabilities(ctx, { ...capabilitySearchBody(ctx), purpose: c.plant('bearer', 'capability search purpose') }, 'capability search with a bearer canary as purpose'));
  return { traces, goalStream };
}

/** Every canary named sensitive that came back is a case; what was read, and what the rate limit refused, is recorded. */
function judgeEchoes(ctx: CheckContext, c: CanarySet, seen: Collector, traces: number | undefined): void {
  ctx.observe('read back', { bodiesAndEvents: seen.scanned, traces: traces ?? 'not reached', canaries: c.all.length });
  if (seen.refused.length > 0) ctx.observe('reads the rate limit refused', seen.refused.map((r) => r.where), 'answered 429 again after the wait it asked for: nothing of them was examined');
  if (seen.markers.size > 0) ctx.observe('redaction markers seen', [...seen.markers]);
  // The seed never defines "sensitive": only values named so by their field (passwords, tokens,
  // API keys, Authorization) are required to be redacted; a value sensitive only by its shape
  // (a PEM block, a bearer string under a neutral field, free text) is recorded.
  const byShapeOnly = seen.sightings.filter((s) => !namedSensitive(s.plantedAt));
  if (byShapeOnly.length > 0) {
    ctx.observe('canaries sensitive only by shape echoed', [...new Set(byShapeOnly.map((s) => `${s.shape} from ${s.plantedAt} → ${s.where} at ${s.path}`))], 'the seed does not define "sensitive"; content under a neutral field is not judged');
  }
  const leaks = seen.sightings.filter((s) => namedSensitive(s.plantedAt));
  // One case per sighting, each with the response it came back in.
  const described = new Map(leaks.map((s) => [`the ${s.shape} canary from ${s.plantedAt} came back in ${s.where} at ${s.path}`, s.from]));
  for (const [what, from] of described) ctx.check(false, what, from);
  // Nothing came back of what was read: that is the judgement too (whether enough was read is noTraceRead's).
  if (described.size === 0) ctx.check(true, 'no canary planted under a field named sensitive came back');
}

/**
 * No trace was examined, the most likely echo of a goal: no sentence is broken by that, so it is no
 * failure. The rate limit refused the reads that would have named or read one (its numbers are not
 * shown); or the target broke the stream (setup); or the fixture ran no step that named a trace.
 */
function noTraceRead(ctx: CheckContext, seen: Collector, goalStream: StreamResponse): never {
  const refused = seen.refused.filter((r) => r.ofTraces);
  if (refused.length > 0) {
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more read${refused.length > 2 ? 's' : ''} of events or traces)` : '';
    stopIfLimited(ctx, refused[0]!.res, `no trace was read back, so the most likely echo of a goal was not examined: ${refused[0]!.where}${more}`);
  }
  if (goalStream.status !== 200) ctx.inconclusive(`setup failed: the canary mission's event stream answered ${goalStream.status}, so no trace was read back`);
  return ctx.untestable({ need: 'fixture', path: 'v8.missions.succeeds', problem: 'gave a mission that named no traceId in its step events, so no trace was read back', remedy: 'give a fixture that runs at least one step' });
}

export const redactionCanaries = rule({
  id: 'v8.redaction.canaries',
  title: 'Canary secrets planted under fields named sensitive (apiKey, password, token, authorization) in goals and signal payloads never come back in a response, event or trace; values sensitive only by shape are recorded',
  level: 'required',
  activeOnly: 'the canaries are values apicert plants and knows to be secret: in traffic apicert did not send, the profile names tokens, not which goal or signal values are secrets',
  spec: {
    section: 'What the service does; Resources > Trace; Errors',
    quote: 'Sensitive values are redacted before any response leaves the gateway. … Sensitive values are replaced by a redaction marker. … Sensitive fields are redacted.',
  },
  async check(ctx: CheckContext) {
    const c = new CanarySet();
    const seen = new Collector(c);
    let read: ReadBack | undefined;
    try {
      read = await plantAndReadBack(ctx, c, seen);
    } finally {
      // A canary that came back is a case whatever stopped the check after it (a fixture's create the rate limit refused).
      judgeEchoes(ctx, c, seen, read?.traces);
    }
    if (read.traces === 0) noTraceRead(ctx, seen, read.goalStream);
  },
});
