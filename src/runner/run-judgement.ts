/**
 * The run's judgement: once every rule has run, each rule whose own exchanges showed no failure is
 * judged once more, by its one judgement, over every exchange of the run, as `judge-traffic` judges
 * the run's recording. A rule's check sends a handful of requests; the run sends thousands, many of
 * them answers the rule's sentence governs (every `/v8` answer carries the version header, every
 * refusal is a problem document). A failure only another check's traffic shows would otherwise pass
 * `certify` and fail `judge-traffic` of certify's own recording.
 *
 * Only a failure changes a verdict: the judgement over the run judges exchanges it was not sent for,
 * kept in part by the run's bounded journal, so what it could not read, or found nothing in, leaves
 * the rule's own verdict standing.
 */
import { evidenceOfJournal, RUN_JOURNAL, runJudgement, type Exchange, type Judgement, type Rule, type RuleResult } from '../rule/index.ts';
import type { CheckContext } from '../rule/index.ts';

/** The verdicts that found no failure in the rule's own exchanges; a fail already says what there is to say. */
const REJUDGED: ReadonlySet<RuleResult['verdict']> = new Set(['pass', 'not-applicable']);
/**
 * The verdicts of a check stopped before its judgement ran (a setup the target refused, a limiter, a
 * fixture that could not be made): its judgement never saw the exchanges there were, its own or the
 * run's, and "a failing case still fails", as it does in `judge-traffic` of the run's recording.
 */
const STOPPED: ReadonlySet<RuleResult['verdict']> = new Set(['inconclusive', 'untestable']);

/** Whether `result` is judged again over the run: a rule with a judgement that found no failure, not already one of the whole run, or that was stopped before judging. */
export function judgedAgain(result: RuleResult): boolean {
  const rule = result.rule;
  if (rule.judgement === undefined) return false;
  return STOPPED.has(result.verdict) || (!rule.judgesTheRun && REJUDGED.has(result.verdict));
}

/** Shows only the exchanges a failing case names: the verdict changes only on a failure. */
function judgeTheRun(judgement: Judgement) {
  return async (ctx: CheckContext): Promise<void> => {
    const journal = ctx.service(RUN_JOURNAL);
    if (!journal) return ctx.notApplicable('no run journal');
    const name = (ex: Exchange) => `${ex.method} ${ex.path}`;
    const show = (ex: Exchange, always: boolean) => (always ? ctx.http.record(evidenceOfJournal(ex)) : undefined);
    // Judged as the run's recording is (`judge-traffic`): the exchanges were not sent for this rule.
    const run = runJudgement(ctx, judgement, journal.exchanges, { source: 'recording', profile: ctx.profile, name, show, sample: true });
    if (!run.failed) ctx.notApplicable('no failure among the run’s exchanges');
  };
}

/**
 * The rule's result after the run's judgement: `first` when the run's exchanges show no failure of
 * the rule, else a failure naming the exchanges that show it, after what the rule's own check saw.
 */
export async function judgeOverTheRun(first: RuleResult, run: (rule: Rule) => Promise<RuleResult>): Promise<RuleResult> {
  const rule = first.rule;
  const judgement = rule.judgement!;
  const again = await run({ ...rule, judgesTheRun: true, check: judgeTheRun(judgement) });
  if (again.verdict !== 'fail') return first;
  const own = first.verdict === 'pass' ? 'its own check’s exchanges passed' : STOPPED.has(first.verdict) ? `its own check ended ${first.verdict}: ${first.reason ?? ''}` : 'its own check’s exchanges held nothing it judges';
  return {
    ...again,
    rule,
    reason: `judged over every exchange of the run (${own}): ${again.reason ?? 'a case failed'}`,
    durationMs: first.durationMs + again.durationMs,
    observations: [...first.observations, ...again.observations],
    rolesRequested: first.rolesRequested,
    requests: first.requests,
  };
}
