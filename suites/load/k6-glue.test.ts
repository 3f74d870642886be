import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleLoadScripts, LOAD_SCRIPT_FILES } from '../../load/build.ts';
import { judgedMetricOf, LOAD_SCRIPTS, metricOf, rulesOf } from '../../src/load/rules.ts';
import { JUDGED_ITERATIONS_METRIC, JUDGED_METRIC, SUMMARY_LINE_PREFIX, type LoadSummary } from '../../src/load/summary.ts';
import { endOfTestData, SHIM_SOURCES, type Recording } from './k6-shim/modules.ts';

// Runs a real bundle in Node with the k6 modules swapped for recording stand-ins: options,
// thresholds, tags, expected statuses, iteration recording and handleSummary, as k6 would see them.
async function loadBundle(script: string, env: Record<string, string>, respond: Recording['respond']) {
  const dir = mkdtempSync(join(tmpdir(), 'apicert-k6-glue-'));
  const shim = (name: string) => {
    const path = join(dir, `${name.replace(/\W/g, '_')}.mjs`);
    writeFileSync(path, SHIM_SOURCES[name]!);
    return pathToFileURL(path).href;
  };
  const built = await bundleLoadScripts(dir, false, LOAD_SCRIPT_FILES.filter((f) => f.endsWith(`/${script}.ts`)));
  let code = built.outputFiles![0]!.text;
  for (const name of ['k6/metrics', 'k6/http', 'k6/execution', 'k6']) code = code.replaceAll(`from "${name}"`, `from "${shim(name)}"`);
  const path = join(dir, `${script}.mjs`);
  writeFileSync(path, code);
  const recording: Recording = { metrics: {}, checks: {}, requests: [], respond };
  Object.assign(globalThis, { __k6: recording, __ENV: env });
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  recording.thresholds = (module.options as { thresholds?: Record<string, string[]> }).thresholds;
  return { module, recording };
}

const problem429 = { status: 429, headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '1' }, body: JSON.stringify({ status: 429, code: 'rate_limited' }) };

describe('a bundled script under k6 stand-ins', () => {
  it('v8-rate-limit: ramps, tags, judges each 429, and leaves a summary on stdout and in a file', async () => {
    const { module, recording } = await loadBundle('v8-rate-limit', { APICERT_V8_TOKEN: 'v8at_glue', APICERT_V8_OTHER_PRINCIPAL_TOKEN: 'v8at_other', APICERT_RATE_MAX: '40', APICERT_SUMMARY_STDOUT: '1', APICERT_SUMMARY_OUT: 'out.json' }, (q) =>
      q.params.headers.Authorization === 'Bearer v8at_other' ? { status: 404, headers: {}, body: '' } : problem429,
    );
    const options = module.options as { scenarios: Record<string, { executor: string; stages: Array<{ target: number }> }>; thresholds: Record<string, string[]> };
    expect(options.scenarios.ramp).toMatchObject({ executor: 'ramping-arrival-rate', stages: [{ target: 40 }] });
    expect(options.thresholds[JUDGED_ITERATIONS_METRIC]).toEqual(['count>0']);
    expect(options.thresholds[JUDGED_METRIC]).toBeUndefined();
    expect(options.thresholds[metricOf('load.v8.rate-limit.per-principal')]).toEqual(['rate==1']);
    expect(options.thresholds[judgedMetricOf('load.v8.rate-limit.per-principal')]).toEqual(['count>0']);
    // An observation gates nothing: no judged threshold.
    expect(options.thresholds[judgedMetricOf('load.v8.rate-limit.limit-observed')]).toBeUndefined();
    (module.setup as () => void)();

    const iterate = module.default as () => Promise<void>;
    await iterate();
    await iterate();
    // Creates, the request the Errors table gives 429 to, each under a fresh key.
    // The other principal served, the first is asked again: refused, so the other was served while it was limited.
    expect(recording.requests.map((r) => r.params.tags.name)).toEqual(['setup reachability GET /', 'ramp POST /v8/missions', 'other-principal POST /v8/missions', 'ramp recheck POST /v8/missions', 'ramp POST /v8/missions']);
    expect(recording.requests[1]!.params.responseCallback).toEqual({ statuses: [202, 429] });
    expect(recording.requests.filter((r) => r.method === 'POST').map((r) => r.params.headers['Idempotency-Key'])).toHaveLength(4);
    expect(new Set(recording.requests.filter((r) => r.method === 'POST').map((r) => r.params.headers['Idempotency-Key'])).size).toBe(4);
    expect(recording.checks['load.v8.rate-limit.per-principal: another principal is not limited while the first is']).toEqual({ passes: 1, fails: 0 });
    // The first iteration probed the other principal and the second did not.
    expect(recording.metrics[judgedMetricOf('load.v8.rate-limit.per-principal')]!.values).toEqual([1, 0]);

    const out = (module.handleSummary as (d: unknown) => Record<string, string>)(endOfTestData(recording));
    expect(out.stdout).toMatch(/thresholds\n(.*\n)* +ok +apicert_judged_iterations count>0/);
    const summary = JSON.parse(out['out.json']!) as LoadSummary;
    expect(summary).toMatchObject({ script: 'v8-rate-limit', segments: ['1/2:1'], iterations: { judged: 2, unjudged: 0 } });
    expect(summary.rules['load.v8.rate-limit.429-problem']).toMatchObject({ passes: 4, fails: 0 });
    expect(summary.figures.v8_rate_429_at_ms!.count).toBe(2);
    const line = out.stdout!.split('\n').find((l) => l.startsWith(SUMMARY_LINE_PREFIX))!;
    expect(JSON.parse(line.slice(SUMMARY_LINE_PREFIX.length))).toEqual(summary);
    expect(JSON.stringify(out)).not.toContain('v8at_glue');
  });

  it('v8-idempotency-storm: an iteration that throws is recorded as judging nothing', async () => {
    const { module, recording } = await loadBundle('v8-idempotency-storm', { APICERT_V8_TOKEN: 'v8at_glue', APICERT_STORM: '3' }, () => {
      throw new Error('connection reset');
    });
    expect((module.options as { batch: number }).batch).toBe(3);
    await expect((module.default as () => Promise<void>)()).rejects.toThrow('connection reset');
    expect(recording.metrics[JUDGED_METRIC]!.values).toEqual([0]);
  });

  it('stops at init with the variable to fix when a setting is malformed, and in setup when the credential is missing', async () => {
    await expect(loadBundle('v1-rate-limit', { APICERT_V1_KEY: 'service_sk_x', APICERT_RATE_MAX: 'lots' }, () => problem429)).rejects.toThrow(/apicert v1-rate-limit: APICERT_RATE_MAX=lots is not a whole number/);
    // k6 archive (the k6-operator initializer) runs init without the credentials: init must not need them.
    const { module, recording } = await loadBundle('v1-events-fanout', {}, () => problem429);
    expect(() => (module.setup as () => void)()).toThrow(/v1-events-fanout needs APICERT_V1_KEY/);
    expect(recording.requests).toEqual([]);
  });

  // What `k6 archive` does (the k6-operator's initializer, without the Secret): run each script's
  // init with no environment. CI has no k6, so this stands in for archiving every script there;
  // npm run load:verify archives them with real k6.
  it.each(LOAD_SCRIPTS.map((s) => [s] as const))('%s: init needs no credential and sends nothing', async (script) => {
    const { module, recording } = await loadBundle(script, {}, () => problem429);
    const options = module.options as { scenarios: Record<string, unknown>; thresholds: Record<string, string[]> };
    expect(Object.keys(options.scenarios).length).toBeGreaterThan(0);
    // A SHOULD rule's failure is a warning in the report, not k6's exit 99.
    for (const rule of rulesOf(script)) expect(options.thresholds[metricOf(rule.id)], rule.id).toEqual(rule.level === 'should' ? undefined : ['rate==1']);
    expect(recording.requests).toEqual([]);
  });

  it('stops in setup, saying what to set, when the target answers nothing', async () => {
    const { module } = await loadBundle('v8-idempotency-storm', { APICERT_V8_TOKEN: 'v8at_glue', APICERT_BASE_URL: 'http://127.0.0.1:9' }, () => ({ status: 0, headers: {}, body: '' }));
    expect(() => (module.setup as () => void)()).toThrow(/APICERT_BASE_URL=http:\/\/127\.0\.0\.1:9 did not answer \(dial: connection refused\): start it, or set APICERT_BASE_URL/);
  });

  // Under the k6-operator an instance may run without setup() (cloud runs pass --no-setup) and its
  // segment may hold no VU: nothing is recorded there, and it must still fail, not exit 0.
  it('an instance that ran no iteration and no setup fails its thresholds and says it judged nothing', async () => {
    const { module, recording } = await loadBundle('v8-idempotency-storm', { APICERT_V8_TOKEN: 'v8at_glue' }, () => problem429);
    const data = endOfTestData(recording) as { metrics: Record<string, { thresholds?: Record<string, { ok: boolean }> }> };
    expect(data.metrics[JUDGED_ITERATIONS_METRIC]!.thresholds).toEqual({ 'count>0': { ok: false } });
    for (const rule of rulesOf('v8-idempotency-storm').filter((r) => r.level === 'required')) expect(data.metrics[judgedMetricOf(rule.id)]!.thresholds, rule.id).toEqual({ 'count>0': { ok: false } });
    const out = (module.handleSummary as (d: unknown) => Record<string, string>)(data);
    expect(out.stdout).toMatch(/CROSSED apicert_judged_iterations count>0/);
    expect(out.stdout).toContain('apicert v8-idempotency-storm: execution segment 1/2:1 ran no iteration that judged a rule');
  });

  it('sends the profile headers of each request\'s surface, and gives k6 the client certificate as tlsAuth', async () => {
    const headers = JSON.stringify({ v8: { 'x-waf-token': 'waf-glue-secret' }, v1: { 'x-tenant': 'tenant-7' } });
    const pem = (what: string) => `-----BEGIN ${what}-----\nAAAA\n-----END ${what}-----`;
    const { module, recording } = await loadBundle('v8-idempotency-storm', { APICERT_V8_TOKEN: 'v8at_glue', APICERT_STORM: '2', APICERT_HEADERS: headers, APICERT_TLS_CERT: pem('CERTIFICATE'), APICERT_TLS_KEY: pem('PRIVATE KEY') }, () => ({ status: 201, headers: {}, body: '{}' }));
    expect((module.options as { tlsAuth?: unknown }).tlsAuth).toEqual([{ cert: `${pem('CERTIFICATE')}\n`, key: `${pem('PRIVATE KEY')}\n` }]);
    (module.setup as () => void)();
    await (module.default as () => Promise<void>)();
    const v8 = recording.requests.filter((r) => r.url.includes('/v8/'));
    expect(v8.length).toBeGreaterThan(0);
    for (const r of v8) {
      expect(r.params.headers['x-waf-token']).toBe('waf-glue-secret');
      expect(r.params.headers['x-tenant']).toBeUndefined();
      expect(r.params.headers.Authorization).toBe('Bearer v8at_glue');
    }
  });

  it('refuses malformed network settings, naming the variable and never a value', async () => {
    await expect(loadBundle('v8-idempotency-storm', { APICERT_TLS_CERT: '/path/to/client.pem', APICERT_TLS_KEY: '/path/to/client.key' }, () => problem429)).rejects.toThrow(/APICERT_TLS_CERT and APICERT_TLS_KEY hold PEM text/);
    await expect(loadBundle('v8-idempotency-storm', { APICERT_TLS_CERT: '-----BEGIN CERTIFICATE-----' }, () => problem429)).rejects.toThrow(/APICERT_TLS_KEY is missing/);
    const { module } = await loadBundle('v8-idempotency-storm', { APICERT_V8_TOKEN: 'v8at_glue', APICERT_HEADERS: JSON.stringify({ v8: { 'x-waf': 'secret-value\r\nx: y' } }) }, () => problem429);
    let message = '';
    try {
      (module.setup as () => void)();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/APICERT_HEADERS\.v8: header x-waf needs a token name and a non-empty value/);
    expect(message).not.toContain('secret-value');
  });
});
