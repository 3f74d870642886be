/** The checks of the generated contract rules: one oracle over the surface's shared probe run, or the run's every 2xx answer. */
import type { EndpointSurface } from '../../contract/endpoints.ts';
import { RUN_EXCHANGES } from '../../probe/journal.ts';
import type { CheckContext } from '../../rule/index.ts';
import { sharedProbes, type Judged, type ProbeRun } from './engine.ts';
import type { Aspect } from './judgement.ts';
import { formatIssues, successSchema } from './oracles.ts';

function shrunk(j: Judged): string {
  if (!j.counterexample) return '';
  const c = j.counterexample;
  return ` [random phase, shrunk after ${c.numRuns} runs: seed ${c.seed}, path ${c.path ?? '-'}; the body is in the evidence's curl line]`;
}

/** What the report keeps of the run once per rule: cases per endpoint, constraint coverage, what was left out. */
function observeRun(ctx: CheckContext, run: ProbeRun): void {
  ctx.observe('seed', run.seed, 'the same --seed sends the same generated requests (fresh idempotency keys and ids the target assigns aside)');
  ctx.observe('requests sent', run.sent);
  ctx.observe('requests digest', run.digest, 'SHA-256 of the generated requests in generation order, fresh idempotency keys and created ids masked: equal for equal --seed');
  ctx.observe('cases per endpoint (must accept, must refuse, open)', Object.fromEntries([...run.cases].map(([k, c]) => [k, `${c.accept}, ${c.refuse}, ${c.open}`])), 'computed from each request as planned; a must-accept or must-refuse case rests on a sentence of the description, an open one on none');
  for (const line of run.setup) ctx.observe('setup of the generated cases', line);
  if (run.limited > 0) ctx.observe('left unjudged after backing off from 429/503', run.limited);
  if (run.unanswered.length > 0) ctx.observe('not answered (transport), not judged', run.unanswered.slice(0, 20), `${run.unanswered.length} in all`);
  for (const s of run.skipped) ctx.observe(`not exercised: ${s.endpoint}`, s.reason);
  for (const [endpoint, rows] of run.coverage) {
    const row = (r: (typeof rows)[number]) => `${r.accept} must accept, ${r.refuse} must refuse, ${r.open} open${r.sentences.length ? `; because ${r.sentences.join(' | ')}` : ''}`;
    ctx.observe(`constraint coverage ${endpoint}`, Object.fromEntries(rows.map((r) => [`${r.constraint} (${r.detail})`, row(r)])), 'cases sent and judged per constraint, by the expectation computed from each request sent');
  }
}

/** Judges one aspect over every exchange of the surface's generated probe run. */
export function judgeOracle(surface: EndpointSurface, aspect: Aspect) {
  return async (ctx: CheckContext): Promise<void> => {
    const run = await sharedProbes(ctx, surface);
    let judged = 0;
    let unjudged = 0;
    const statuses = new Map<string, Set<number>>();
    for (const j of run.judged) {
      if (j.judgement.unjudged) {
        unjudged += 1;
        if (unjudged <= 3) ctx.observe('not judged (no final answer)', j.judgement.unjudged);
        continue;
      }
      const finding = j.judgement.findings[aspect];
      if (!finding) continue;
      if (judged === 0) ctx.http.record(j.evidence);
      judged += 1;
      if (aspect === 'error-status' && j.expectation.kind === 'refuse' && j.expectation.status === undefined) {
        const endpoint = j.g.constraint.split(' ').slice(0, 2).join(' ');
        const status = j.evidence.response?.status;
        if (status !== undefined) statuses.set(endpoint, (statuses.get(endpoint) ?? new Set()).add(status));
      }
      if (finding.ok) ctx.check(true, '');
      else ctx.check(false, `${finding.reason}${shrunk(j)}`, ctx.http.record(j.evidence));
    }
    if (aspect === 'no-5xx') observeRun(ctx, run);
    if (unjudged > 0) ctx.observe('answers not judged (redirects, bodies cut at the cap)', unjudged);
    for (const [endpoint, seen] of statuses) ctx.observe(`refusal statuses ${endpoint}`, [...seen].sort(), 'where the description names no status, any 4xx in the error format passes');
    if (judged > 0) return;
    const skipped = run.skipped.map((s) => `${s.endpoint}: ${s.reason}`).join('; ');
    if (!ctx.profile.safety.allowMutations && unjudged === 0) ctx.notApplicable(`no generated request of this kind is a read (${skipped})`);
    ctx.inconclusive(`no generated request was judged${unjudged ? ` (${unjudged} answers were redirects or cut bodies, never a final answer)` : ''}${run.limited ? ` (${run.limited} left to a rate limiter)` : ''}${skipped ? `: ${skipped}` : ''}`);
  };
}

/** Judges every 2xx JSON answer of the run, whichever rule provoked it, against its endpoint's contract schema. */
export function judgeResponses(surface: EndpointSurface) {
  return async (ctx: CheckContext): Promise<void> => {
    const journal = ctx.service(RUN_EXCHANGES);
    // Alone (or outside certify), the rule provokes its own answers: the generated probes' valid requests.
    await sharedProbes(ctx, surface);
    const entries = journal ? journal.entries : [];
    let judged = 0;
    for (const e of entries) {
      if (!e.path.startsWith(`/${surface}/`)) continue;
      const schema = successSchema(e.method, e.path, e.contentType);
      if (!schema) continue;
      const parsed = schema.safeParse(e.json);
      if (judged === 0) ctx.http.record(e.evidence);
      judged += 1;
      if (parsed.success) ctx.check(true, '');
      else ctx.check(false, `${e.method} ${e.path.split('?', 1)[0]} answered ${e.status} with a body that does not match its contract schema: ${formatIssues(parsed.error)}`, ctx.http.record(e.evidence));
    }
    if (journal?.dropped) ctx.observe('answers past the journal limit (not judged)', journal.dropped);
    ctx.observe('2xx JSON answers judged', judged);
    if (judged === 0 && journal && !ctx.profile.safety.allowMutations) ctx.notApplicable(`no 2xx JSON answer of /${surface} was seen in this read-only run`);
    if (judged === 0) ctx.inconclusive(journal ? `no 2xx JSON answer of /${surface} was seen in the run` : 'the run keeps no journal of its exchanges');
  };
}
