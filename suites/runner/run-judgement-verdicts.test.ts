/**
 * One recording, one verdict (audit s27-mcp F2): the run's judgement (src/runner/run-judgement.ts)
 * turns a rule whose own check judged nothing (not-applicable, or stopped: a limiter, a setup the
 * target refused) into a pass when the run's exchanges gave it cases that all held, as
 * `judge-traffic` of certify's own recording passes it. A failure still wins; a judgement that
 * judged nothing, and a prerequisite the profile lacks, leave the rule's own verdict.
 *
 * No network: the run's journal is written here, and the rule's judgement chooses its exchanges
 * from their requests (GET /judged/…), whatever they were answered.
 */
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/probe/budget.ts';
import { createDispatcher, ProbeClient } from '../../src/probe/client.ts';
import { profileSchema } from '../../src/profile/schema.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { Inconclusive, Journal, RUN_JOURNAL, runJudgement, type Exchange, type Judgement, type Prerequisite, type Rule, type RuleResult, type Verdict } from '../../src/rule/index.ts';
import { judgedAgain, judgeOverTheRun } from '../../src/runner/run-judgement.ts';
import { runRule } from '../../src/runner/run.ts';

const profile = profileSchema.parse({ target: 'http://127.0.0.1:9' });
const probe = new ProbeClient({ baseUrl: profile.target, redactor: new Redactor(), budget: new RequestBudget(10), timeoutMs: 1000, streamTimeoutMs: 1000, streamCloseGraceMs: 100, dispatcher: createDispatcher() });

/** Judges every GET of /judged/…: it must be answered 200. The request decides; the answer is judged. */
const judgement: Judgement = {
  record: 'a GET of /judged/…',
  judge(j) {
    for (const ex of j.exchanges) if (ex.method === 'GET' && ex.path.startsWith('/judged/')) j.check(ex, ex.status === 200, `answered ${ex.status}, expected 200`);
  },
};

function rule(extra: Partial<Rule> = {}): Rule {
  return {
    id: 'mcp.test.run-judged',
    surface: 'mcp',
    title: 'test rule',
    level: 'required',
    destructive: 'read',
    spec: { document: 'v8-integration-gateway.md', section: 'Test', quote: 'test' },
    needs: {},
    judgement,
    check: () => Promise.resolve(),
    ...extra,
  };
}

function own(verdict: Verdict, reason?: string, missing?: Prerequisite[], r: Rule = rule()): RuleResult {
  return { rule: r, verdict, ...(reason !== undefined ? { reason } : {}), ...(missing ? { missing } : {}), durationMs: 3, evidence: [], evidenceOmitted: 0, observations: [], cases: [], casesOmitted: 0, rolesRequested: [], requests: 2 };
}

function journalOf(...answers: Array<[string, number]>): Journal {
  const journal = new Journal();
  for (const [path, status] of answers) {
    const ex: Omit<Exchange, 'index'> = { method: 'GET', url: `http://127.0.0.1:9${path}`, path, requestHeaders: {}, status, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{}' };
    journal.add(ex);
  }
  return journal;
}

function overTheRun(first: RuleResult, journal: Journal): Promise<RuleResult> {
  const services = { provided: new Map<string, unknown>([[RUN_JOURNAL.name, journal]]) };
  return judgeOverTheRun(first, (r) => runRule(r, { target: { baseUrl: profile.target, kind: 'remote' }, profile, seed: 1, probe, services, checkNeeds: false }));
}

/** Two cases held; the 500 is of a request the rule does not judge. */
const clean = () => journalOf(['/judged/1', 200], ['/other', 500], ['/judged/2', 200]);
const broken = () => journalOf(['/judged/1', 200], ['/judged/2', 503]);
const nothingJudged = () => journalOf(['/other', 200], ['/other', 500]);

const SETUP = 'setup failed: initialize answered HTTP 503';
const NONE = 'no request was answered 401';

describe('the run’s judgement of a rule whose own check judged nothing', () => {
  it('not-applicable becomes pass when the run’s exchanges gave it cases that all held, keeping the own reason', async () => {
    const result = await overTheRun(own('not-applicable', NONE), clean());
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.reason).toBe(`judged over every exchange of the run (its own check’s exchanges held nothing it judges: ${NONE}): 2 exchange(s) of the run judged, every case held`);
    // What it judged is shown; nothing failed.
    expect(result.evidence.map((e) => e.request.url)).toContain('http://127.0.0.1:9/judged/1');
    expect(result.cases).toEqual([]);
    expect(result.requests).toBe(2);
  });

  it('a stopped check (inconclusive: its setup refused) becomes pass, saying why it judged nothing', async () => {
    const result = await overTheRun(own('inconclusive', SETUP), clean());
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.reason).toBe(`judged over every exchange of the run (its own check ended inconclusive: ${SETUP}): 2 exchange(s) of the run judged, every case held`);
  });

  it('untestable for a setup the target refused (no room: data it holds) becomes pass', async () => {
    const room: Prerequisite = { need: 'data', what: 'no room for another webhook endpoint (it refused to register another endpoint: 409)', remedy: 'free registrations' };
    const result = await overTheRun(own('untestable', 'the target has no room', [room]), clean());
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.reason).toMatch(/^judged over every exchange of the run \(its own check ended untestable: the target has no room\): 2 exchange/);
    expect(result.missing).toBeUndefined();
  });

  it.each<[string, Prerequisite[] | undefined]>([
    ['a fixture', [{ need: 'fixture', path: 'mcp.safeTool' }]],
    ['a credential', [{ need: 'credential', role: 'mcp:expired', remedy: 'add one' }]],
    ['a fixture beside the target’s data', [{ need: 'data', what: 'no goal', remedy: 'give one' }, { need: 'fixture', path: 'v8.memory' }]],
    ['the receiver', [{ need: 'receiver', remedy: 'none runs' }]],
    ['an untold prerequisite', undefined],
  ])('untestable for a missing prerequisite of the profile (%s) stays untestable', async (_, missing) => {
    const first = own('untestable', 'fixture fixtures.mcp.safeTool is not set', missing);
    const result = await overTheRun(first, clean());
    expect(result).toBe(first);
  });

  it.each<[Verdict, string | undefined, string]>([
    ['not-applicable', NONE, 'its own check’s exchanges held nothing it judges'],
    ['inconclusive', SETUP, 'its own check ended inconclusive'],
    ['untestable', 'fixture fixtures.mcp.safeTool is not set', 'its own check ended untestable'],
    ['pass', undefined, 'its own check’s exchanges passed'],
  ])('a failing case over the run still wins over an own %s', async (verdict, reason, says) => {
    const missing: Prerequisite[] | undefined = verdict === 'untestable' ? [{ need: 'fixture', path: 'mcp.safeTool' }] : undefined;
    const result = await overTheRun(own(verdict, reason, missing), broken());
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toContain(`judged over every exchange of the run (${says}`);
    expect(result.reason).toMatch(/GET \/judged\/2: answered 503, expected 200/);
    expect(result.evidence[result.cases[0]!.exchange!]!.request.url).toBe('http://127.0.0.1:9/judged/2');
  });

  it.each<[Verdict, string]>([
    ['not-applicable', NONE],
    ['inconclusive', SETUP],
  ])('a run whose exchanges hold nothing the rule judges keeps the own %s (never a pass that judged nothing)', async (verdict, reason) => {
    const first = own(verdict, reason);
    expect(await overTheRun(first, nothingJudged())).toBe(first);
    expect(await overTheRun(first, new Journal())).toBe(first);
  });

  it('an own pass stays as it was when the run’s exchanges hold no failure', async () => {
    const first = own('pass');
    expect(await overTheRun(first, clean())).toBe(first);
  });
});

describe('which results the run judges again', () => {
  it('a stopped rule of the whole run is judged again, its not-applicable (already over the run) is not; a rule without a judgement (activeOnly) never', () => {
    const whole = rule({ judgesTheRun: true });
    expect(judgedAgain(own('inconclusive', SETUP, undefined, whole))).toBe(true);
    expect(judgedAgain(own('not-applicable', NONE, undefined, whole))).toBe(false);
    expect(judgedAgain(own('not-applicable', NONE))).toBe(true);
    const active = rule({ judgement: undefined, activeOnly: 'only an active probe shows it' });
    for (const verdict of ['pass', 'not-applicable', 'inconclusive', 'untestable'] as const) expect(judgedAgain(own(verdict, 'x', undefined, active))).toBe(false);
  });

  it('an untestable result carries the prerequisite it found missing, thrown or declared', async () => {
    const options = { target: { baseUrl: profile.target, kind: 'remote' as const }, profile, seed: 1, probe };
    const thrown = await runRule(rule({ check: (ctx) => Promise.resolve(ctx.untestable({ need: 'fixture', path: 'mcp.safeTool' })) }), options);
    expect(thrown.verdict).toBe('untestable');
    expect(thrown.missing).toEqual([{ need: 'fixture', path: 'mcp.safeTool' }]);
    const declared = await runRule(rule({ needs: { credentials: ['mcp:expired'] } }), options);
    expect(declared.verdict).toBe('untestable');
    expect(declared.missing?.map((m) => m.need)).toEqual(['credential']);
  });

  it('an inconclusive apicert’s own bound caused (the request budget), or the rule’s judgement reached over its own exchanges, stands: the run’s exchanges do not decide for it', async () => {
    const options = { target: { baseUrl: profile.target, kind: 'remote' as const }, profile, seed: 1, probe };
    const starved = await runRule(rule({ check: () => Promise.resolve(new RequestBudget(0).take()) }), options);
    expect(starved.verdict).toBe('inconclusive');
    expect(starved.standing).toBe(true);
    const undecided: Judgement = {
      record: 'x',
      judge() {
        throw new Inconclusive('a case only a rate limiter answered');
      },
    };
    const judged = await runRule(rule({ judgement: undecided, check: (ctx) => Promise.resolve(void runJudgement(ctx, undecided, [], { source: 'active', profile })) }), options);
    expect(judged.verdict).toBe('inconclusive');
    expect(judged.standing).toBe(true);
    const setup = await runRule(rule({ check: (ctx) => Promise.resolve(ctx.inconclusive('setup failed: initialize answered HTTP 503')) }), options);
    expect(setup.verdict).toBe('inconclusive');
    expect(setup.standing).toBeUndefined();
    for (const first of [starved, judged]) expect(await overTheRun(first, clean())).toBe(first);
    expect((await overTheRun(setup, clean())).verdict).toBe('pass');
  });
});
