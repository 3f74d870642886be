/**
 * apicert against a hostile or broken target, one mode per run (the short variant: a rule set that
 * touches JSON, problem+json, event streams, MCP and webhooks; `npm run bench:hostile` runs every
 * rule). Each run must end by itself within a bound, write every report, judge nothing it could not
 * read as a pass, keep every canary secret out of every output, and stay under the memory cap.
 * The every-rule run on a 1 GiB body is suites/hostile/huge-body.test.ts, a file of its own so it runs on
 * the other worker beside these modes.
 */
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { selectRules } from '../../src/runner/run.ts';
import { expectUnderRssCap } from '../support/hostile-limits.ts';
import { certifyHostile } from './certify-hostile.ts';
import { HOSTILE_MODES, NOTHING_MAY_PASS, type HostileMode } from './hostile-server.ts';

/** The generated contract rules: an answer that is not the endpoint's documented success answer is never an acceptance. */
export const GENERATED_RULES = ['v8.contract.generated.*', 'v1.contract.generated.*', 'mcp.jsonrpc.generated.errors'];

export const SHORT_RULES = [
  'v8.missions.get.*',
  'v8.missions.events.shape',
  'v8.missions.auth.missing-token-401',
  'v8.errors.problem-shape',
  'v8.redaction.canaries',
  'v1.auth.unauthenticated',
  'v1.runs.events.identity',
  'v1.webhooks.register.secret-once',
  'mcp.session.*',
  'mcp.sse.closes-after-response',
  ...GENERATED_RULES,
].join(',');

const SHORT_SELECTION = selectRules(RULES, { patterns: SHORT_RULES.split(',') });

const isGenerated = (id: string) => /^(v8|v1)\.contract\.generated\.|^mcp\.jsonrpc\.generated\./.test(id);

/** Well above the first probe's 3 s, so a loaded machine's slow start-up never lets the deadline pass first. */
const DEADLINE_S = 8;
/** The run's deadline, shutdown and two Node start-ups on a loaded machine. */
const WALL_BOUND_MS = 45_000;
/** Modes where the first probe cannot complete: the report must still be written, exit 3, every rule inconclusive. */
const FIRST_PROBE_FAILS: ReadonlySet<HostileMode> = new Set(['no-answer', 'drip', 'endless-sse', 'sse-silent', 'reset-mid-body', 'huge-headers']);

describe.concurrent.each(HOSTILE_MODES)('certifying a target in mode %s', (mode) => {
  it('ends in bounded time with a full report, no pass on hostile bytes, no secret in any output, bounded memory', { timeout: 60_000 }, async () => {
    const run = await certifyHostile(mode, { deadline: `${DEADLINE_S}s`, rules: SHORT_RULES, killAfterMs: 50_000 });
    const context = `${mode}: exit ${run.exitCode}, ${JSON.stringify(run.verdicts)}, stderr ${(run.outputs.stderr ?? '').slice(-600)}`;
    expect(run.signal, context).toBeNull();
    expect(run.wallMs, context).toBeLessThan(WALL_BOUND_MS);
    expect(Object.keys(run.outputs).sort(), context).toEqual(['junit.xml', 'report.html', 'report.json', 'stderr', 'stdout', 'summary.md']);
    // Every rule the short list selects is in the report, judged or not.
    expect(run.report!.rules.length, context).toBe(SHORT_SELECTION.length);
    if (FIRST_PROBE_FAILS.has(mode)) {
      expect(run.exitCode, context).toBe(3);
      expect(run.verdicts, context).toEqual({ inconclusive: run.report!.rules.length });
      // Which stopped it first, the first probe's timeout or the run's deadline, is a race on a busy
      // machine; that one cause stopped the run, stated once, is what is guaranteed.
      expect(run.report!.run.stopped, context).toBeDefined();
      expect(run.outputs.stderr?.match(/the run stopped: /g), context).toHaveLength(1);
    } else {
      expect([1, 3], context).toContain(run.exitCode);
    }
    if (NOTHING_MAY_PASS.has(mode)) expect(run.verdicts.pass ?? 0, context).toBe(0);
    // A redirect is no final answer: the generated rules judge nothing on it, so none of them may pass either.
    if (mode !== 'echo') expect(run.report!.rules.filter((r) => isGenerated(r.id) && r.verdict === 'pass').map((r) => r.id), context).toEqual([]);
    expect(run.outputs['report.json']).not.toMatch(/harness defect|\n\s+at /);
    expect(run.leaks, context).toEqual([]);
    expectUnderRssCap(run.peakRssMiB, context);
  });
});
