/**
 * The generated contract rules: each is one aspect of the one judgement over a journal
 * (src/checks/generated/traffic.ts), provoked by the surface's generated probe run, which is sent
 * once per certification and shared; `response-schema` judges every 2xx JSON answer of the run.
 */
import type { EndpointSurface } from '../../contract/endpoints.ts';
import type { CheckContext, Exchange, Judge, Judgement } from '../../rule/index.ts';
import { bodyMissing, parsedAs, responseJson } from '../../traffic/read.ts';
import { sharedProbes, type ProbeRun } from './engine.ts';
import type { Aspect } from './judgement.ts';
import { formatIssues, successSchema } from './oracles.ts';
import { aspectJudgement, surfaceOfPath } from './traffic.ts';
import { withLimitedLeft } from './limited.ts';
import { ownedByCatalogue } from '../catalogue/traffic.ts';
import type { Profile } from '../../profile/schema.ts';

/** What the report keeps of the run once per surface: cases per endpoint, constraint coverage, what was left out. */
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

/**
 * The provocation of a generated rule: the surface's shared probe run (sent by whichever rule asks
 * first). Returns its exchanges, which the rule's judgement judges; the first aspect reports the run.
 */
export function provokeGenerated(surface: EndpointSurface, aspect: Aspect) {
  return async (ctx: CheckContext): Promise<readonly Exchange[]> => {
    const run = await sharedProbes(ctx, surface);
    if (aspect === 'no-5xx') observeRun(ctx, run);
    if (run.exchanges.length === 0 && !ctx.profile.safety.allowMutations) ctx.notApplicable(`no generated request of this kind is a read (${run.skipped.map((s) => `${s.endpoint}: ${s.reason}`).join('; ')})`);
    return run.exchanges;
  };
}

const WHAT: Record<Aspect, string> = {
  'no-5xx': 'an answered request',
  'problem-json': 'a refusal (4xx, or a JSON-RPC error)',
  'error-status': 'a request a sentence says must be refused',
  'accepts-valid': 'a request within every stated constraint, sent by the primary credential',
};

/** A catalogue case is the catalogue rules' to judge (with its operator's sentence): each exchange is judged once. */
export function notCatalogue(ex: Exchange, profile: Profile | undefined): boolean {
  return !ownedByCatalogue(ex, profile);
}

/** One aspect of the generated judgement over every exchange of the surface. */
export function generatedJudgement(surface: EndpointSurface, aspect: Aspect): Judgement {
  return withLimitedLeft(aspectJudgement({ surface, aspects: [aspect], record: `${WHAT[aspect]} to /${surface}`, owns: notCatalogue }), surface, aspect, notCatalogue);
}

/** The run's 2xx JSON answers of the surface, each against its endpoint's contract schema (picked by the request: its endpoint; then its answer's status and media type say which schema). */
export function responseSchemaJudgement(surface: EndpointSurface): Judgement {
  return {
    record: `a 2xx JSON answer of a /${surface} endpoint whose description shows its schema`,
    judge(j: Judge) {
      for (const ex of j.exchanges) {
        if (surfaceOfPath(ex.path) !== surface || ex.status === undefined || ex.status < 200 || ex.status >= 300) continue;
        const schema = successSchema(ex.method, ex.path, ex.responseHeaders['content-type'] ?? '');
        if (!schema) continue;
        const missing = bodyMissing(ex);
        if (missing !== undefined) {
          j.lacks(ex, `the answer's body: ${missing}`);
          continue;
        }
        // An empty 2xx body has no JSON to hold to a schema (a content type on nothing).
        if ((ex.responseBody ?? '').trim() === '') continue;
        // The same verdict the generated judgement's documented-success reading asks of this body and schema: parsed once (`parsedAs`).
        const parsed = parsedAs(schema, responseJson(ex));
        j.check(ex, parsed.success, parsed.success ? '' : `answered ${ex.status} with a body that does not match its contract schema: ${formatIssues(parsed.error)}`);
      }
    },
  };
}

/** `response-schema` alone (outside certify) provokes its own answers: the generated probes' valid requests. */
export async function provokeAnswers(ctx: CheckContext, surface: EndpointSurface): Promise<void> {
  await sharedProbes(ctx, surface);
}
