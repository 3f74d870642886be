/**
 * The k6 side of every script: a Transport on http.batch, the metrics and checks a judgment
 * becomes, the thresholds that turn a failed rule into exit 99, and handleSummary. The scenario
 * logic itself lives in src/load/scenarios, where vitest runs it against the fake.
 */
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import http, { type RefinedResponse } from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';
import type { Options, Scenario } from 'k6/options';
import { clientCertificate, ConfigError, credentialOf, extraHeaders, loadConfig, loadSettings, rampRate, surfaceOfUrl, untestableRules, type LoadConfig, type SurfaceHeaders } from '../../src/load/config.ts';
import { judgedMetricOf, metricOf, rulesOf, type LoadScript } from '../../src/load/rules.ts';
import { figureMetric, JUDGED_ITERATIONS_METRIC, JUDGED_METRIC, SUMMARY_LINE_PREFIX, summaryFromK6, type K6SummaryData } from '../../src/load/summary.ts';
import type { LoadRequest, LoadResponse, StepResult, Transport } from '../../src/load/transport.ts';
import { textSummary, type TextSummaryData } from './text-summary.ts';

function named<T>(script: LoadScript, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) throw new Error(`apicert ${script}: ${error.message}`);
    throw error;
  }
}

/**
 * The settings, read at init; a malformed one stops the script there (exit 107) naming the
 * variable. No credential is read at init: the k6-operator's initializer runs `k6 archive`
 * without the Secret that carries them.
 */
export function settingsFor(script: LoadScript): LoadConfig {
  return named(script, () => loadSettings(__ENV));
}

/** The settings with the credentials, once per VU, when the test runs; the script's own credential as `credential`. */
export function runConfigFor(script: LoadScript): () => LoadConfig & { credential: string } {
  let cached: (LoadConfig & { credential: string }) | undefined;
  return () => {
    if (cached) return cached;
    const config = named(script, () => loadConfig(__ENV));
    cached = { ...config, credential: named(script, () => credentialOf(script, config)) };
    return cached;
  };
}

// The profile's headers per surface (APICERT_HEADERS): secrets like the credentials, so read when the test runs, never at init.
let surfaceHeaders: SurfaceHeaders | undefined;
function profileHeaders(url: string): Record<string, string> {
  if (!surfaceHeaders) {
    try {
      surfaceHeaders = extraHeaders(__ENV);
    } catch (error) {
      if (error instanceof ConfigError) throw new Error(`apicert: ${error.message}`);
      throw error;
    }
  }
  return surfaceHeaders[surfaceOfUrl(url)] || {};
}

/**
 * k6's tlsAuth from APICERT_TLS_CERT and APICERT_TLS_KEY (mutual TLS): an option, so read at init;
 * absent (as under `k6 archive`, without the Secret) it is simply not set.
 */
function tlsOptions(): Options {
  let certificate: ReturnType<typeof clientCertificate>;
  try {
    certificate = clientCertificate(__ENV);
  } catch (error) {
    if (error instanceof ConfigError) throw new Error(`apicert: ${error.message}`);
    throw error;
  }
  return certificate ? { tlsAuth: [certificate] } : {};
}

type ExpectedStatusesCallback = ReturnType<typeof http.expectedStatuses>;

// Created once per status set, as the k6 docs advise for per-request callbacks.
const callbacks: Record<string, ExpectedStatusesCallback> = {};
function expected(statuses: readonly number[]): ExpectedStatusesCallback {
  const key = statuses.join(',');
  // No `??=` in code k6 loads: k6 v0.57 never finishes `(a[k] ??= b)`.
  let callback = callbacks[key];
  if (!callback) callbacks[key] = callback = http.expectedStatuses(...statuses);
  return callback;
}

function expectedAnyAnswer(): ExpectedStatusesCallback {
  return http.expectedStatuses({ min: 100, max: 599 });
}

function response(res: RefinedResponse<'text'>): LoadResponse {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(res.headers)) headers[name.toLowerCase()] = res.headers[name]!;
  const out: LoadResponse = { status: res.status, headers, body: typeof res.body === 'string' ? res.body : '' };
  if (res.error) out.error = res.error;
  // k6's error code for "request timeout" (https://grafana.com/docs/k6/latest/javascript-api/error-codes/).
  if (res.error_code === 1050) out.timedOut = true;
  return out;
}

export const k6Transport: Transport = {
  batch(requests: readonly LoadRequest[]): Promise<LoadResponse[]> {
    const responses = http.batch(
      requests.map((r) => ({
        method: r.method,
        url: r.url,
        body: r.body ?? null,
        params: { headers: { ...profileHeaders(r.url), ...r.headers }, tags: { name: r.name }, responseCallback: expected(r.expect), timeout: r.timeoutMs ?? 60_000, responseType: 'text' as const },
      })),
    ) as Array<RefinedResponse<'text'>>;
    return Promise.resolve(responses.map(response));
  },
  sleep(ms: number): Promise<void> {
    sleep(ms / 1000);
    return Promise.resolve();
  },
};

/** Metrics, checks and thresholds of one script; build it in the init context (k6 creates metrics there only). */
export class Recorder {
  private readonly rates: Record<string, Rate> = {};
  /**
   * Per required rule: how many iterations judged it. A Counter, because k6 evaluates `count>0` on
   * a Counter that got no sample (0 fails) but passes a Rate's threshold when it has no sample.
   */
  private readonly covered: Record<string, Counter> = {};
  private readonly judged = new Rate(JUDGED_METRIC);
  private readonly judgedIterations = new Counter(JUDGED_ITERATIONS_METRIC);
  private readonly trends: Record<string, Trend> = {};
  private readonly script: LoadScript;
  private readonly figureNames: readonly string[];
  /** The iterations of the whole run, for a script of bounded iterations: a summary with fewer was cut short. */
  plannedIterations: number | undefined;

  constructor(script: LoadScript, figures: readonly string[]) {
    this.script = script;
    this.figureNames = figures;
    for (const rule of rulesOf(script)) {
      this.rates[rule.id] = new Rate(metricOf(rule.id));
      if (rule.level === 'required') this.covered[rule.id] = new Counter(judgedMetricOf(rule.id));
    }
    for (const name of figures) this.trends[name] = new Trend(figureMetric(name));
  }

  /**
   * Every rule's judgments must all pass (`rate==1`), but a SHOULD rule's, and every required rule
   * must have been judged at least once (`count>0` of its judged Counter), as must one iteration at least: a run,
   * or an execution segment, that judged nothing fails (exit 99), never passes 0 of 0. Counters
   * hold this on every instance, whether or not it ran setup() (k6-operator's cloud runs pass
   * --no-setup) and whether or not its segment got a VU.
   */
  thresholds(): Record<string, string[]> {
    const out: Record<string, string[]> = { [JUDGED_ITERATIONS_METRIC]: ['count>0'] };
    for (const rule of rulesOf(this.script)) {
      // A SHOULD not followed is a warning in the report, as in certify: it does not fail the run (exit 99).
      if (rule.level !== 'should') out[metricOf(rule.id)] = ['rate==1'];
      if (rule.level === 'required') out[judgedMetricOf(rule.id)] = ['count>0'];
    }
    return out;
  }

  /**
   * k6's setup: stops the test (exit 107) with what to set when the script's credential or a
   * network setting is wrong, or when the target answers nothing.
   */
  setup(runConfig: () => LoadConfig): () => void {
    return () => {
      const config = runConfig();
      const url = `${config.baseUrl}/`;
      // Any HTTP answer will do: a target that answers nothing would only leave every rule unjudged.
      const res = http.get(url, { headers: profileHeaders(url), tags: { name: 'setup reachability GET /' }, timeout: 10_000, responseCallback: expectedAnyAnswer() });
      if (res.status === 0) throw new Error(`apicert ${this.script}: the target at APICERT_BASE_URL=${config.baseUrl} did not answer (${res.error || 'no response'}): start it, or set APICERT_BASE_URL to its base URL`);
    };
  }

  record(step: StepResult): void {
    this.judged.add(step.judgments.length > 0);
    this.judgedIterations.add(step.judgments.length > 0 ? 1 : 0);
    const judgedRules = new Set(step.judgments.map((j) => j.rule));
    for (const id of Object.keys(this.covered)) this.covered[id]!.add(judgedRules.has(id) ? 1 : 0);
    for (const j of step.judgments) {
      this.rates[j.rule]?.add(j.ok);
      check(null, { [`${j.rule}: ${j.check}`]: () => j.ok });
    }
    for (const f of step.figures) this.trends[f.name]?.add(f.value);
  }

  /** Wraps an iteration so it is recorded even when it throws. */
  iteration(run: () => Promise<StepResult>): () => Promise<void> {
    return async () => {
      let step: StepResult = { judgments: [], figures: [] };
      try {
        step = await run();
      } finally {
        this.record(step);
      }
    };
  }

  /** k6's text summary on stdout, the apicert JSON summary in a file (and on stdout when asked). */
  handleSummary(config: LoadConfig): (data: unknown) => Record<string, string> {
    return (data) => {
      // The end of the test: the credentials may be read now (to name the rules they leave untestable).
      const untestable = untestableRules(this.script, named(this.script, () => loadConfig(__ENV)));
      const summary = summaryFromK6(data as K6SummaryData, { script: this.script, target: config.baseUrl, segment: segment(), figures: this.figureNames, untestable, ...(this.plannedIterations === undefined ? {} : { plannedIterations: this.plannedIterations }) });
      let stdout = textSummary(data as TextSummaryData);
      if (summary.iterations.judged === 0) stdout += `\napicert ${this.script}: execution segment ${summary.segments.join(' ')} ran no iteration that judged a rule (no VU, no iteration, or every one failed): it judged nothing, and its thresholds fail\n`;
      if (__ENV.APICERT_SUMMARY_STDOUT === '1') stdout += `\n${SUMMARY_LINE_PREFIX}${JSON.stringify(summary)}\n`;
      return { stdout: `${stdout}\n`, [__ENV.APICERT_SUMMARY_OUT || `apicert-${this.script}.summary.json`]: `${JSON.stringify(summary, null, 2)}\n` };
    };
  }
}

/** The execution segment this instance runs (k6-operator gives each one its own), `0:1` alone. */
function segment(): string {
  try {
    const value = (exec.test.options as { executionSegment?: unknown }).executionSegment;
    if (typeof value === 'string' && value !== '') return value;
  } catch {
    // Older k6 without exec.test.options: a whole run.
  }
  return '0:1';
}

const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(95)', 'count'];

/** Options of a script of bounded iterations (APICERT_ITERATIONS, APICERT_VUS, APICERT_MAX_DURATION), each sending up to `concurrency` requests at once. */
export function iterationOptions(name: string, config: LoadConfig, concurrency: number, recorder: Recorder): Options {
  recorder.plannedIterations = config.iterations;
  return {
    scenarios: { [name]: { executor: 'shared-iterations', vus: config.vus, iterations: config.iterations, maxDuration: config.maxDuration } },
    batch: concurrency,
    batchPerHost: concurrency,
    ...tlsOptions(),
    thresholds: recorder.thresholds(),
    summaryTrendStats: SUMMARY_TREND_STATS,
  };
}

/** Options of a rate-limit script: a ramping arrival rate (APICERT_RATE_START to APICERT_RATE_MAX over APICERT_RAMP), plus `more` scenarios. */
export function rampOptions(config: LoadConfig, recorder: Recorder, exec: string, more: Record<string, Scenario> = {}): Options {
  const ramp: Scenario = {
    executor: 'ramping-arrival-rate',
    exec,
    startRate: config.rateStart,
    timeUnit: '1s',
    preAllocatedVUs: Math.min(config.maxVus, 5),
    maxVUs: config.maxVus,
    stages: [{ target: config.rateMax, duration: config.ramp }],
  };
  return { scenarios: { ramp, ...more }, ...tlsOptions(), thresholds: recorder.thresholds(), summaryTrendStats: SUMMARY_TREND_STATS };
}

/** A fresh Idempotency-Key (16-128 of A-Za-z0-9._:-), unique across VUs and instances. */
export function newKey(): string {
  return `apicert-load-${exec.vu.idInTest}-${exec.vu.iterationInInstance}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Milliseconds since the current scenario started. */
export function elapsedMs(): number {
  return Date.now() - exec.scenario.startTime;
}

/** The clock a rate-limit step reads: time into the ramp, and the arrival rate reached by then. */
export function rampClock(config: LoadConfig): { elapsedMs: () => number; arrivalRate: () => number } {
  return { elapsedMs, arrivalRate: () => rampRate(config, elapsedMs()) };
}
