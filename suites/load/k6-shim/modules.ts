/**
 * Stand-ins for the k6 modules a bundled script imports, enough to run one in Node: metrics and
 * checks are recorded, http.batch answers from a function the test gives, and the recording is
 * turned into the end-of-test data k6 hands to handleSummary. They test the glue (load/lib/k6.ts),
 * not k6.
 */

export interface Recording {
  metrics: Record<string, { type: 'rate' | 'trend' | 'counter'; values: number[] }>;
  checks: Record<string, { passes: number; fails: number }>;
  requests: Array<{ method: string; url: string; params: { headers: Record<string, string>; tags: { name: string }; responseCallback: unknown } }>;
  /** The thresholds the script exported, evaluated by endOfTestData as k6 does. */
  thresholds?: Record<string, string[]>;
  respond: (request: { method: string; url: string; params: { headers: Record<string, string> } }) => { status: number; headers: Record<string, string>; body: string };
}

export const SHIM_SOURCES: Record<string, string> = {
  k6: `export function check(value, sets) { const r = globalThis.__k6; for (const [name, fn] of Object.entries(sets)) { const ok = Boolean(fn(value)); const c = (r.checks[name] ??= { passes: 0, fails: 0 }); ok ? c.passes++ : c.fails++; } return true; }`,
  'k6/metrics': `
    function metric(type) { return class { constructor(name) { this.name = name; globalThis.__k6.metrics[name] = { type, values: [] }; } add(v) { globalThis.__k6.metrics[this.name].values.push(Number(v)); } }; }
    export const Rate = metric('rate'); export const Trend = metric('trend'); export const Counter = metric('counter');`,
  'k6/http': `export default {
    expectedStatuses: (...statuses) => ({ statuses }),
    batch: (requests) => requests.map((q) => { globalThis.__k6.requests.push(q); const a = globalThis.__k6.respond(q); return { status: a.status, headers: a.headers, body: a.body, error: a.status === 0 ? 'dial: connection refused' : '' }; }),
    get(url, params) { return this.batch([{ method: 'GET', url, params: { headers: {}, ...params } }])[0]; },
  };`,
  'k6/execution': `export default { vu: { idInTest: 7, iterationInInstance: 0 }, scenario: { startTime: Date.now() - 1500 }, test: { options: { executionSegment: '1/2:1' } } };`,
};

/** The thresholds the glue writes, as k6 evaluates them at the end: a Counter with no sample counts 0, a Rate with none passes. */
function evaluated(expressions: readonly string[] | undefined, m: { type: string; values: number[] }): Record<string, { ok: boolean }> | undefined {
  if (!expressions) return undefined;
  const out: Record<string, { ok: boolean }> = {};
  for (const expression of expressions) {
    if (expression === 'count>0') out[expression] = { ok: m.values.reduce((a, b) => a + b, 0) > 0 };
    else if (expression === 'rate==1') out[expression] = { ok: m.values.length === 0 || m.values.every((v) => v !== 0) };
    else throw new Error(`the k6 shim does not evaluate ${expression}`);
  }
  return out;
}

/** k6's end-of-test data from a recording: Rates as passes/fails, Counters as count, Trends with count, checks at the root. */
export function endOfTestData(r: Recording): unknown {
  const metrics: Record<string, { type: string; values: Record<string, number>; thresholds?: Record<string, { ok: boolean }> }> = {};
  for (const [name, m] of Object.entries(r.metrics)) {
    const thresholds = evaluated(r.thresholds?.[name], m);
    if (m.type === 'counter' && thresholds) {
      metrics[name] = { type: 'counter', values: { count: m.values.reduce((a, b) => a + b, 0), rate: 0 }, thresholds };
      continue;
    }
    if (m.values.length === 0) continue;
    if (m.type === 'rate') {
      const passes = m.values.filter((v) => v !== 0).length;
      const rate = passes / m.values.length;
      metrics[name] = { type: 'rate', values: { rate, passes, fails: m.values.length - passes }, ...(thresholds ? { thresholds } : {}) };
    } else if (m.type === 'counter') {
      metrics[name] = { type: 'counter', values: { count: m.values.reduce((a, b) => a + b, 0), rate: 0 } };
    } else {
      metrics[name] = { type: 'trend', values: { min: Math.min(...m.values), max: Math.max(...m.values), avg: m.values.reduce((a, b) => a + b, 0) / m.values.length, count: m.values.length } };
    }
  }
  return { metrics, root_group: { checks: Object.entries(r.checks).map(([name, c]) => ({ name, ...c })), groups: [] }, state: { testRunDurationMs: 1234 } };
}
