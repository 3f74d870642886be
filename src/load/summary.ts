/**
 * The JSON a load script leaves behind (handleSummary), the one shape that travels from k6 to the
 * readiness report: per-rule tallies of judgments, figures, and why a rule could not be judged.
 * Tallies and figures add up across execution segments, so per-instance summaries of a
 * distributed run merge into one. No Node or k6 imports: the k6 bundles carry this module.
 */
import { LOAD_RULES, metricOf, rulesOf, type LoadScript } from './rules.ts';
import { sentenceText } from '../contract/sentence.ts';
import { SCOPE_CODES, V1_SCOPES_NOT_SHOWN } from '../traffic/scope-refusal.ts';
import { PER_PRINCIPAL_CHECK, scopeRefusedFigure, V1_RATE_FIGURES, V8_OTHER_PRINCIPAL } from './scenarios/rate-limit.ts';
import type { StepResult } from './transport.ts';

export const SUMMARY_FORMAT = 'apicert.load-summary/1';
/** Prefix of the stdout line that carries the summary, for runners whose files are lost (k6-operator pods). */
export const SUMMARY_LINE_PREFIX = 'apicert-load-summary: ';

export interface Tally {
  passes: number;
  fails: number;
}

export interface RuleTally extends Tally {
  /** Per fixed check sentence: which part of the rule failed. */
  checks: Record<string, Tally>;
}

export interface FigureStats {
  count: number;
  min: number;
  max: number;
  avg: number;
}

export interface LoadSummary {
  format: typeof SUMMARY_FORMAT;
  script: LoadScript;
  /** Execution segments covered, k6 notation (`0:1/2`); `0:1` is a whole run. */
  segments: string[];
  /** Base URL only: a summary never holds a credential. */
  target: string;
  durationMs: number;
  /** Iterations that judged at least one rule, and those that judged nothing (errors, transport trouble). */
  iterations: { judged: number; unjudged: number };
  /** Iterations the whole run was to have (APICERT_ITERATIONS) for a script of bounded iterations; absent for the ramps. */
  plannedIterations?: number;
  rules: Record<string, RuleTally>;
  figures: Record<string, FigureStats>;
  /** Requests k6 sent (its http_reqs count); absent in a summary built outside k6. */
  requests?: number;
  /** Iterations k6 did not start because no VU was free (dropped_iterations): a ramp then fell short of its planned rate. */
  droppedIterations?: number;
  /** Rules the script could not judge for a missing prerequisite, with what to give it. */
  untestable: Record<string, string>;
}

export function emptySummary(script: LoadScript, target: string, segments: string[] = ['0:1']): LoadSummary {
  return { format: SUMMARY_FORMAT, script, segments, target, durationMs: 0, iterations: { judged: 0, unjudged: 0 }, rules: {}, figures: {}, untestable: {} };
}

/** The entry under `key`, made empty first when there is none (k6 v0.57 never finishes `(o[k] ??= v)`, and k6 loads this module). */
function entry<T>(record: Record<string, T>, key: string, make: () => T): T {
  let value = record[key];
  if (value === undefined) record[key] = value = make();
  return value;
}

function addTally(into: Tally, from: Tally): void {
  into.passes += from.passes;
  into.fails += from.fails;
}

function addFigure(into: Record<string, FigureStats>, name: string, stats: FigureStats): void {
  const seen = into[name];
  if (!seen) {
    into[name] = { ...stats };
    return;
  }
  const count = seen.count + stats.count;
  into[name] = { count, min: Math.min(seen.min, stats.min), max: Math.max(seen.max, stats.max), avg: count === 0 ? 0 : (seen.avg * seen.count + stats.avg * stats.count) / count };
}

/** Adds one iteration's judgments to a summary (what k6 does with metrics, done in memory for vitest). */
export function record(summary: LoadSummary, step: StepResult): void {
  if (step.judgments.length > 0) summary.iterations.judged += 1;
  else summary.iterations.unjudged += 1;
  for (const j of step.judgments) {
    const rule = entry(summary.rules, j.rule, () => ({ passes: 0, fails: 0, checks: {} }));
    const one = { passes: j.ok ? 1 : 0, fails: j.ok ? 0 : 1 };
    addTally(rule, one);
    addTally(entry(rule.checks, j.check, () => ({ passes: 0, fails: 0 })), one);
  }
  for (const f of step.figures) addFigure(summary.figures, f.name, { count: 1, min: f.value, max: f.value, avg: f.value });
}

// ---- k6's summary data, as handleSummary receives it (only the parts read here) ----

export interface K6SummaryData {
  metrics: Record<string, { type?: string; values: Record<string, number> } | undefined>;
  root_group: K6Group;
  state?: { testRunDurationMs?: number };
}

interface K6Group {
  checks: Array<{ name: string; passes: number; fails: number }>;
  groups: K6Group[];
}

export const JUDGED_METRIC = 'apicert_iteration_judged';
/** A Counter of the iterations that judged a rule: its `count>0` threshold holds on an instance that ran none. */
export const JUDGED_ITERATIONS_METRIC = 'apicert_judged_iterations';

export function figureMetric(name: string): string {
  return `apicert_figure_${name.replace(/[^A-Za-z0-9]+/g, '_')}`;
}

/** Builds the summary from k6's end-of-test data: rule metrics are Rates, figures Trends, checks named `<rule id>: <sentence>`. */
export function summaryFromK6(data: K6SummaryData, meta: { script: LoadScript; target: string; segment: string; figures: readonly string[]; untestable: Record<string, string>; plannedIterations?: number }): LoadSummary {
  const summary = emptySummary(meta.script, meta.target, [meta.segment]);
  if (meta.plannedIterations !== undefined) summary.plannedIterations = meta.plannedIterations;
  summary.durationMs = Math.round(data.state?.testRunDurationMs ?? 0);
  summary.untestable = { ...meta.untestable };
  const judged = data.metrics[JUDGED_METRIC]?.values;
  if (judged) summary.iterations = { judged: judged.passes ?? 0, unjudged: judged.fails ?? 0 };
  const sent = data.metrics.http_reqs?.values.count;
  if (sent !== undefined) summary.requests = sent;
  const dropped = data.metrics.dropped_iterations?.values.count;
  if (dropped !== undefined && dropped > 0) summary.droppedIterations = dropped;
  for (const rule of rulesOf(meta.script)) {
    const values = data.metrics[metricOf(rule.id)]?.values;
    if (!values || (values.passes ?? 0) + (values.fails ?? 0) === 0) continue;
    summary.rules[rule.id] = { passes: values.passes ?? 0, fails: values.fails ?? 0, checks: {} };
  }
  const groups: K6Group[] = [data.root_group];
  while (groups.length > 0) {
    const group = groups.pop()!;
    groups.push(...(group.groups ?? []));
    for (const c of group.checks ?? []) {
      const colon = c.name.indexOf(': ');
      const rule = summary.rules[c.name.slice(0, colon)];
      if (colon > 0 && rule) rule.checks[c.name.slice(colon + 2)] = { passes: c.passes, fails: c.fails };
    }
  }
  for (const name of meta.figures) {
    const v = data.metrics[figureMetric(name)]?.values;
    if (v && (v.count ?? 0) > 0) summary.figures[name] = { count: v.count!, min: v.min!, max: v.max!, avg: v.avg! };
  }
  return summary;
}

// ---- reading and merging ----

export class SummaryError extends Error {}

/** Accepts a summary file's JSON, or a log holding `apicert-load-summary: {...}` lines (one per instance). */
export function parseSummaries(text: string, source: string): LoadSummary[] {
  const trimmed = text.trim();
  const candidates = trimmed.startsWith('{')
    ? [trimmed]
    : text
        .split(/\r?\n/)
        .map((line) => line.slice(line.indexOf(SUMMARY_LINE_PREFIX)))
        .filter((line) => line.startsWith(SUMMARY_LINE_PREFIX))
        .map((line) => line.slice(SUMMARY_LINE_PREFIX.length));
  if (candidates.length === 0) throw new SummaryError(`${source} holds no apicert load summary (a JSON file written by a load script, or a log with "${SUMMARY_LINE_PREFIX.trim()}" lines)`);
  return candidates.map((candidate) => {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      throw new SummaryError(`${source}: a summary is not valid JSON`);
    }
    const s = value as Partial<LoadSummary>;
    if (s.format !== SUMMARY_FORMAT || typeof s.script !== 'string' || !Array.isArray(s.segments) || typeof s.rules !== 'object') {
      throw new SummaryError(`${source}: not an ${SUMMARY_FORMAT} summary`);
    }
    return value as LoadSummary;
  });
}

/** Exact fractions of k6 segment notation: `a:b` with a, b like `1/4`, `0.25` or `1`. */
function segmentBounds(segment: string): [number, number] {
  const value = (s: string) => {
    const [n, d] = s.split('/');
    return d === undefined ? Number(n) : Number(n) / Number(d);
  };
  const [from, to] = segment.includes(':') ? segment.split(':') : ['0', segment];
  return [value(from!), value(to!)];
}

/**
 * Merges the summaries of one script's execution segments. Overlapping segments would count an
 * instance twice, so they are refused; segments that do not add up to the whole run are named,
 * since the verdict then covers part of the load.
 */
export function mergeSummaries(summaries: readonly LoadSummary[]): { summary: LoadSummary; missing: string | undefined } {
  if (summaries.length === 0) throw new SummaryError('no summaries to merge');
  const script = summaries[0]!.script;
  const other = summaries.find((s) => s.script !== script || s.target !== summaries[0]!.target);
  if (other) throw new SummaryError(`cannot merge ${other.script} on ${other.target} with ${script} on ${summaries[0]!.target}: merge one script's segments at a time`);
  const spans = summaries.flatMap((s) => s.segments.map((seg) => ({ seg, bounds: segmentBounds(seg) }))).sort((a, b) => a.bounds[0] - b.bounds[0]);
  let covered = 0;
  let end = 0;
  for (const span of spans) {
    if (span.bounds[0] < end - 1e-9) throw new SummaryError(`execution segment ${span.seg} overlaps another summary's segment: was one instance's summary given twice?`);
    end = span.bounds[1];
    covered += span.bounds[1] - span.bounds[0];
  }
  const merged = emptySummary(script, summaries[0]!.target, spans.map((s) => s.seg));
  // Every segment's script read the same APICERT_ITERATIONS: the whole run's.
  const planned = summaries[0]!.plannedIterations;
  if (planned !== undefined && summaries.every((s) => s.plannedIterations === planned)) merged.plannedIterations = planned;
  for (const s of summaries) {
    merged.durationMs = Math.max(merged.durationMs, s.durationMs);
    merged.iterations.judged += s.iterations.judged;
    merged.iterations.unjudged += s.iterations.unjudged;
    if (s.requests !== undefined) merged.requests = (merged.requests ?? 0) + s.requests;
    if (s.droppedIterations !== undefined) merged.droppedIterations = (merged.droppedIterations ?? 0) + s.droppedIterations;
    for (const [id, tally] of Object.entries(s.rules)) {
      const into = entry(merged.rules, id, () => ({ passes: 0, fails: 0, checks: {} }));
      addTally(into, tally);
      for (const [check, t] of Object.entries(tally.checks)) addTally(entry(into.checks, check, () => ({ passes: 0, fails: 0 })), t);
    }
    for (const [name, stats] of Object.entries(s.figures)) addFigure(merged.figures, name, stats);
    Object.assign(merged.untestable, s.untestable);
  }
  const missing = Math.abs(covered - 1) < 1e-9 ? cutShort(merged) : `the summaries cover ${(covered * 100).toFixed(1)} % of the run (segments ${merged.segments.join(', ')})`;
  return { summary: merged, missing };
}

/**
 * Why a whole run's summary covers part of the load: k6 was stopped (`stopped` says how: an
 * interrupt, the time limit), or fewer iterations ran than planned (APICERT_MAX_DURATION ended the
 * scenario first). Its passes then hold for part of the load only, as a merge of some segments.
 */
export function cutShort(summary: LoadSummary, stopped?: string): string | undefined {
  const ran = summary.iterations.judged + summary.iterations.unjudged;
  const planned = summary.plannedIterations;
  const of = planned === undefined ? `${ran} iterations` : `${ran} of ${planned} iterations`;
  if (stopped !== undefined) return `the run was cut short: ${stopped} after ${of}`;
  if (planned !== undefined && ran < planned) return `the run was cut short: ${of} ran (APICERT_MAX_DURATION ended the scenario first)`;
  return undefined;
}

// ---- verdicts ----

export type LoadVerdict = 'pass' | 'fail' | 'untestable' | 'inconclusive' | 'not-applicable';

export interface LoadRuleResult {
  id: string;
  verdict: LoadVerdict;
  reason: string;
  figures: Record<string, FigureStats>;
}

/** Figures each observation rule reports, by name prefix. */
const FIGURES_OF: Record<string, string> = {
  'load.v1.rate-limit.limit-reached': 'v1_rate_',
  'load.v8.rate-limit.limit-observed': 'v8_rate_',
};

const NO_429 = 'no 429 came within the ramp: raise APICERT_RATE_MAX or APICERT_RAMP, or use a key on a lower tier';
const NO_V8_429 =
  'no 429 came within the ramp of creates (POST /v8/missions, the request the Errors table gives 429 "rate limit for the principal"): raise APICERT_RATE_MAX or APICERT_RAMP, or give APICERT_V8_RATE_LIMIT_TOKEN of a principal on a lower tier';
const FEW_ADMITTED = 'fewer than two same-key same-body requests of a storm were admitted (the rest refused 429/503, or not answered), so no replay was compared: lower APICERT_STORM below the principal\'s rate limit, or raise its limit';
const NO_CONFLICT = 'no other-body request was judged: none of a storm\'s same-body requests was admitted (no key was in use), or every other-body request was refused (429/503) or not answered';

const V1_STREAMS_OPEN =
  "the run's event streams did not close within APICERT_STREAM_TIMEOUT, and no sentence asks them to (\"A turn stream ends at a terminal event\" is said of turns only): k6 hands a reader the body only once its request ends, so a stream held open leaves nothing to judge (docs/load.md, Limits)";

/** Why a rule's judgment can be out of reach in a run where others were judged. */
const NOT_REACHED: Record<string, string> = {
  'load.v1.rate-limit.429-shape': NO_429,
  'load.v1.rate-limit.retry-after': NO_429,
  'load.v8.rate-limit.429-problem': NO_V8_429,
  'load.v8.rate-limit.per-principal': NO_V8_429,
  'load.v8.idempotency.storm-one-mission': FEW_ADMITTED,
  'load.v1.idempotency.storm-one-run': FEW_ADMITTED,
  'load.v1.idempotency.storm-replayed': 'fewer than two same-key turns of a storm were admitted with request.accepted, so no replay was compared: lower APICERT_STORM below the key\'s rate limit, or raise its limit',
  'load.v1.idempotency.storm-conflict': NO_CONFLICT,
  'load.v8.idempotency.storm-conflict': NO_CONFLICT,
};

const inFlight = (surface: 'v1' | 'v8', rule: string) =>
  `the target refused a storm's same-key duplicates with 409 while the first was in flight, a choice /${surface} leaves open (it says nothing of a request arriving while the first with its key is in flight), so a storm admits one request and compares no replay, and the same request sent once the storm was over was refused too (or not answered): certify's ${rule} judges replays sent one after another`;
const V1_IN_FLIGHT = inFlight('v1', 'v1.execute.idempotency.replay');

/**
 * Every resume answered 409: the resumes go out once the readers' streams have ended, from cursors
 * before the terminal event, and neither the window's size nor its duration is given, so a window
 * may hold none of them (the fake's `v8.missions/replay-window-one`).
 */
const v8ResumesOutsideWindow = (stats: FigureStats) =>
  `the resumes with Last-Event-ID were answered 409 (${Math.round(stats.avg * stats.count)} of them, in ${stats.count} iterations), so no resumed stream was there to compare for a repeat or a gap. ` +
  'The cursors named events before the terminal one, and were sent once the readers\' streams had ended: "A `Last-Event-ID` outside the window gives `409`" and "Size or duration of the replay window: not shown." ' +
  '(v8, Events), so a window that holds none of them by then (one event, or a short time) is the target\'s choice. ' +
  'certify\'s v8.missions.events.resume takes such a 409 as the answer its sentence gives, and passes on it; this rule judges what a resumed reader sees, which a 409 does not show';

/**
 * Rules a legal choice of the target can leave with nothing to judge, and the figure that shows the
 * choice was taken: readers timing out on a stream the server keeps open (k6 hands over a body only
 * when its request ends), duplicates refused while the first was in flight, or resumes outside a
 * replay window.
 */
const CHOICE_SHOWN: Record<string, { figure: string; reason: string | ((stats: FigureStats) => string) }> = {
  'load.v1.events.fanout-same-events': { figure: 'v1_fanout_readers_timed_out', reason: V1_STREAMS_OPEN },
  'load.v1.events.fanout-resume': { figure: 'v1_fanout_readers_timed_out', reason: V1_STREAMS_OPEN },
  'load.v8.idempotency.storm-one-mission': { figure: 'v8_storm_refused_in_flight', reason: inFlight('v8', 'v8.missions.idempotency.replay') },
  'load.v1.idempotency.storm-one-run': { figure: 'v1_storm_refused_in_flight', reason: V1_IN_FLIGHT },
  'load.v1.idempotency.storm-replayed': { figure: 'v1_storm_refused_in_flight', reason: V1_IN_FLIGHT },
  'load.v8.events.fanout-resume': { figure: 'v8_fanout_resumes_409', reason: v8ResumesOutsideWindow },
};

/** "403" or "401-403": the statuses a figure of statuses saw. */
function statuses(stats: FigureStats): string {
  return stats.min === stats.max ? `${stats.min}` : `${stats.min}-${stats.max}`;
}

const V1_RAMP_RULES = ['load.v1.rate-limit.429-shape', 'load.v1.rate-limit.retry-after', 'load.v1.rate-limit.refusals-are-429', 'load.v1.rate-limit.limit-reached'];

/**
 * Why a /v1 rate-limit rule is untestable: the key it needs was refused before the limit could
 * speak. A refusal naming a scope reads as certify reads it (v1.errors.rate-limited,
 * v1.errors.limiter-unavailable-503: "usage refused …: it may need a scope the description does not
 * show"); a ramp refused 401/403 otherwise had a key the target does not take.
 */
function keyRefused(summary: LoadSummary, ruleId: string): string | undefined {
  const down = ruleId === 'load.v1.rate-limit.unavailable-503';
  if (!down && !V1_RAMP_RULES.includes(ruleId)) return undefined;
  // The ramp's verdicts stand on any answer refusals-are-429 judged (a success, a 429, a 503, a 5xx saying rate_limited).
  if (!down && summary.rules['load.v1.rate-limit.refusals-are-429'] !== undefined) return undefined;
  const who = down ? 'limiter_down' : 'ramp';
  const key = down ? 'APICERT_V1_LIMITER_DOWN_KEY' : 'APICERT_V1_RATE_LIMIT_KEY (APICERT_V1_KEY when unset)';
  const seen = SCOPE_CODES.flatMap((code) => {
    const stats = summary.figures[scopeRefusedFigure(who, code)];
    return stats && stats.count > 0 ? [{ code, stats }] : [];
  });
  if (seen.length > 0) {
    const what = seen.map(({ code, stats }) => `${stats.count} answered ${statuses(stats)} ${code}`).join(', ');
    const before = down ? 'before its limiter was asked (the key was never served)' : 'and never served it';
    return `GET /v1/usage refused ${key} for a scope (${what}) ${before}: it may need a scope the description does not show (${sentenceText(V1_SCOPES_NOT_SHOWN)}); give the key the scope this deployment asks for GET /v1/usage (and list it under the key's scopes in the profile)`;
  }
  const refused = down ? undefined : summary.figures[V1_RATE_FIGURES.rampCredentialRefused];
  if (refused && refused.count > 0) return `GET /v1/usage refused ${key} ${refused.count} times with ${statuses(refused)}, naming no scope, and never served it: the target does not take this key; give a key it serves`;
  return undefined;
}

/** The limit answered with another status than 429 (judged under 429-shape): rules that need a 429 say so, not "raise the rate". */
function limitOtherwise(summary: LoadSummary, ruleId: string): string | undefined {
  if (ruleId !== 'load.v1.rate-limit.retry-after') return undefined;
  const other = summary.figures[V1_RATE_FIGURES.limitOtherStatus];
  if (!other || other.count === 0) return undefined;
  return `no 429 came: the limit answered ${other.count} requests of a key served before with ${statuses(other)} instead (judged under load.v1.rate-limit.429-shape), so there was no 429 to carry a Retry-After`;
}

/**
 * Iterations k6 dropped when they are a share of the run worth a word (5 % or more): the ramp then
 * fell short of its planned rate, so "no 429 came" may be the generator's doing. A few dropped on a
 * busy machine change nothing.
 */
export function fellShort(summary: LoadSummary): number | undefined {
  const dropped = summary.droppedIterations ?? 0;
  const ran = summary.iterations.judged + summary.iterations.unjudged;
  return dropped > 0 && dropped >= 0.05 * (dropped + ran) ? dropped : undefined;
}

function droppedNote(summary: LoadSummary): string {
  const dropped = fellShort(summary);
  return dropped ? `; k6 dropped ${dropped} iterations (no VU was free), so the ramp fell short of its planned rate: raise --vus (APICERT_MAX_VUS)` : '';
}

function nothingJudged(summary: LoadSummary, ruleId: string): string {
  const { judged, unjudged } = summary.iterations;
  const shown = CHOICE_SHOWN[ruleId];
  const stats = shown ? summary.figures[shown.figure] : undefined;
  if (shown && stats && stats.count > 0) return `not judged: ${typeof shown.reason === 'string' ? shown.reason : shown.reason(stats)}`;
  const otherwise = limitOtherwise(summary, ruleId);
  if (otherwise) return `not judged: ${otherwise}`;
  const hint = NOT_REACHED[ruleId] === undefined ? undefined : `${NOT_REACHED[ruleId]}${droppedNote(summary)}`;
  // One execution segment of a distributed run: k6 gives a scenario's VUs out among the segments, so with fewer VUs than segments some get none.
  const segment = summary.segments.length === 1 && summary.segments[0] !== '0:1' ? `; this summary covers execution segment ${summary.segments[0]} only, and a segment may get no VU for a scenario when APICERT_VUS is below the number of segments: merge every segment's summary (apicert load merge)` : '';
  if (judged === 0) return `nothing was judged: ${unjudged} iterations without a judgment (errors, refusals, no answer): see the k6 output${hint ? `; when answers came, ${hint}` : ''}${segment}`;
  return `not judged in ${judged} judged iterations: ${hint ?? 'no answer reached this rule'}${segment}`;
}

/**
 * "A per-principal rate limit exists (`429`)": the first limit the ramp met must have left another
 * principal served. A limit met later in the ramp, besides it (gateway-wide, per IP: no sentence
 * forbids one), may refuse the other principal too and breaks nothing; a first limit that refused
 * both counts them in one bucket, and no limit of the principal's own showed.
 */
function perPrincipal(summary: LoadSummary, figures: Record<string, FigureStats>): LoadRuleResult | undefined {
  const id = 'load.v8.rate-limit.per-principal';
  const refused = summary.figures[V8_OTHER_PRINCIPAL.refusedAtMs];
  if (!refused || refused.count === 0) return undefined;
  const served = summary.figures[V8_OTHER_PRINCIPAL.servedAtMs];
  const shown = { ...figures, [V8_OTHER_PRINCIPAL.refusedAtMs]: refused, ...(served ? { [V8_OTHER_PRINCIPAL.servedAtMs]: served } : {}) };
  const passes = summary.rules[id]?.passes ?? 0;
  if (served && served.count > 0 && served.min <= refused.min) {
    return { id, verdict: 'pass', reason: `${passes} judgments passed: another principal was served while the first was limited, from ${Math.round(served.min)} ms into the ramp; ${refused.count} of its later requests (from ${Math.round(refused.min)} ms) were answered 429 too, by a limit besides the per-principal one (gateway-wide, per IP), which no sentence forbids`, figures: shown };
  }
  const before = served && served.count > 0 ? `, before any was served (the first at ${Math.round(served.min)} ms)` : ` (${refused.count} of ${refused.count})`;
  return { id, verdict: 'fail', reason: `${PER_PRINCIPAL_CHECK}: the first request of another principal sent while the first was limited (${Math.round(refused.min)} ms into the ramp) was answered 429 too${before}, so the first limit the ramp met counts both principals and no limit of the principal's own showed`, figures: shown };
}

function failedChecks(tally: RuleTally): string {
  return Object.entries(tally.checks)
    .filter(([, t]) => t.fails > 0)
    .map(([check, t]) => `${check} (${t.fails} of ${t.passes + t.fails})`)
    .join('; ');
}

/**
 * One verdict per rule of the script. A rule nothing judged is never a pass: it is untestable
 * when a prerequisite was missing, inconclusive otherwise. Observation rules report figures.
 */
export function verdictsOf(summary: LoadSummary, partial?: string): LoadRuleResult[] {
  return rulesOf(summary.script).map((rule) => {
    const prefix = FIGURES_OF[rule.id];
    const figures = prefix ? Object.fromEntries(Object.entries(summary.figures).filter(([name]) => name.startsWith(prefix))) : {};
    const dropped = summary.droppedIterations;
    if (prefix && dropped) figures.k6_dropped_iterations = { count: 1, min: dropped, max: dropped, avg: dropped };
    const tally = summary.rules[rule.id];
    const untestable = summary.untestable[rule.id];
    const refusedKey = keyRefused(summary, rule.id);
    let result: LoadRuleResult;
    const timed = tally?.fails ? undefined : rule.id === 'load.v8.rate-limit.per-principal' ? perPrincipal(summary, figures) : undefined;
    if (timed) result = timed;
    else if (tally && tally.fails > 0) result = { id: rule.id, verdict: 'fail', reason: `${tally.fails} of ${tally.passes + tally.fails} judgments failed: ${failedChecks(tally)}`, figures };
    else if (tally && tally.passes > 0) result = { id: rule.id, verdict: 'pass', reason: `${tally.passes} judgments passed${rule.level === 'observation' && fellShort(summary) ? `${droppedNote(summary)} (the arrival rates recorded are the ramp's planned ones, above what k6 sent)` : ''}`, figures };
    else if (untestable) result = { id: rule.id, verdict: 'untestable', reason: untestable, figures };
    else if (refusedKey) result = { id: rule.id, verdict: 'untestable', reason: refusedKey, figures };
    else if (rule.level === 'observation') result = { id: rule.id, verdict: 'not-applicable', reason: `nothing to record: the load never reached a limit${droppedNote(summary)}`, figures };
    else result = { id: rule.id, verdict: 'inconclusive', reason: nothingJudged(summary, rule.id), figures };
    if (partial && result.verdict === 'pass') return { ...result, verdict: 'inconclusive', reason: `${result.reason}, but ${partial}` };
    return result;
  });
}

export function ruleById(id: string) {
  return LOAD_RULES.find((r) => r.id === id);
}
