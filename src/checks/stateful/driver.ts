/**
 * Runs model-based rules: fast-check generates sequences of commands (`fc.commands`), each sequence
 * runs against the target and a model of what the seeds allow (`fc.asyncModelRun`), and a failing
 * sequence is shrunk and reported as numbered requests with curl lines.
 */
import fc from 'fast-check';
import { CheckFailure, NotApplicable, TransportError, Untestable, type CheckContext } from '../../rule/index.ts';
import { limiterAware, SequenceLimited } from './limiter.ts';
import { formatCounterexample, Transcript, type TranscriptStep } from './transcript.ts';

/** What every command of a model-based rule gets besides the model. */
export interface Real {
  ctx: CheckContext;
  transcript: Transcript;
  /** Requests this rule may still send; commands run as no-ops once it is spent. */
  budget: RuleBudget;
}

export class RuleBudget {
  private readonly ctx: CheckContext;
  private readonly limit: number;
  constructor(ctx: CheckContext, limit: number) {
    this.ctx = ctx;
    this.limit = limit;
  }
  get used(): number {
    return this.ctx.http.evidence.length;
  }
  get spent(): boolean {
    return this.used >= this.limit;
  }
}

/**
 * A command of a model-based rule. `act` sends the requests and judges every answer against the
 * set the model allows; the driver brackets it in the transcript and skips it once the budget is spent.
 */
export abstract class ModelCommand<M extends object> implements fc.AsyncCommand<M, Real> {
  abstract check(model: Readonly<M>): boolean;
  abstract toString(): string;
  protected abstract act(model: M, real: Real): Promise<void>;

  async run(model: M, real: Real): Promise<void> {
    if (real.budget.spent) return;
    real.transcript.begin(this.toString());
    try {
      await this.act(model, real);
    } finally {
      real.transcript.end();
    }
  }
}

/** Every model counts its steps, so messages can say where something was learnt. */
export interface Stepped {
  step: number;
}

/** Lets time pass between operations, so the target's own progress interleaves with them. */
class Pause<M extends Stepped> extends ModelCommand<M> {
  private readonly ms: number;
  constructor(ms: number) {
    super();
    this.ms = ms;
  }
  check(): boolean {
    return true;
  }
  toString(): string {
    return `wait ${this.ms} ms`;
  }
  protected async act(model: M, { ctx }: Real): Promise<void> {
    model.step += 1;
    await ctx.sleep(this.ms);
  }
}

export function pauses<M extends Stepped>(): fc.Arbitrary<fc.AsyncCommand<M, Real>> {
  return fc.constantFrom(20, 80, 200).map((ms) => new Pause<M>(ms));
}

export interface ModelBounds {
  runs: number;
  commands: number;
  timeMs: number;
  requests: number;
}

export function modelBounds(ctx: CheckContext): ModelBounds {
  const s = ctx.profile.safety;
  return { runs: s.modelRuns, commands: s.modelCommands, timeMs: s.modelTimeMs, requests: s.modelRequests };
}

export interface ModelSpec<M extends object> {
  commands: Array<fc.Arbitrary<fc.AsyncCommand<M, Real>>>;
  /** A fresh model per sequence; it may throw Untestable when a fixture is missing. */
  model: () => M;
  /** Commands every sequence starts with (the first mission), so generated steps have something to act on. */
  start?: () => Array<ModelCommand<M>>;
  /** Leaves the target tidy after a sequence (cancels what it started); never judged, never in the transcript. */
  cleanup?: (model: M, real: Real) => Promise<void>;
  /**
   * What the rule promises to judge beyond any command (an approve, say): when no sequence did it,
   * the rule records so (`observe`), naming what the profile lacks, instead of passing silently.
   */
  promised?: Array<{ what: string; done: (model: Readonly<M>) => boolean; why: string }>;
}

interface FailedSequence {
  steps: TranscriptStep[];
  violation: string;
  /** The exchange the violated expectation named, so the report shows the request that broke the model. */
  exchange: number | undefined;
}

function isVerdictError(error: unknown): error is Untestable | NotApplicable | TransportError {
  return error instanceof Untestable || error instanceof NotApplicable || error instanceof TransportError;
}

/**
 * Runs up to `modelRuns` sequences of up to `modelCommands` commands within `modelTimeMs` and
 * `modelRequests`. A violation fails the rule with the shrunk sequence; transport trouble, a spent
 * run-wide budget or a missing fixture end it with that verdict instead.
 */
export async function runModel<M extends object>(ctx: CheckContext, spec: ModelSpec<M>): Promise<void> {
  const bounds = modelBounds(ctx);
  const budget = new RuleBudget(ctx, bounds.requests);
  let stopped: Untestable | NotApplicable | TransportError | undefined;
  let lastFailure: FailedSequence | undefined;
  let sequences = 0;
  let commands = 0;
  /** Sequences the rate limiter ended (a refusal, then another after the wait it asked for). */
  let limited = 0;
  let lastLimit = '';
  const kept = new Set<string>();
  // Every request a command sends goes through the limiter's allowance: a refusal judges nothing.
  const commandCtx = limiterAware(ctx);

  // Shrinking gets at most half the time: a longer counterexample found in time beats none.
  let shrinkUntil = Number.POSITIVE_INFINITY;
  const property = fc.asyncProperty(fc.commands(spec.commands, { maxCommands: bounds.commands, size: 'max' }), async (cmds) => {
    // After transport trouble or a spent budget every further sequence would judge nothing.
    if (stopped || budget.spent || performance.now() > shrinkUntil) return;
    const transcript = new Transcript(ctx.http);
    const real: Real = { ctx: commandCtx, transcript, budget };
    const model = spec.model();
    sequences += 1;
    try {
      // A start command that has nothing to act on (a create that made nothing) is skipped.
      for (const command of spec.start?.() ?? []) if (command.check(model)) await command.run(model, real);
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      commands += transcript.steps.length;
    } catch (error) {
      if (error instanceof SequenceLimited) {
        // The steps before the refusal were judged; the rest of the sequence would act on what the model cannot know.
        limited += 1;
        lastLimit = error.message;
        commands += Math.max(0, transcript.steps.length - 1);
        return;
      }
      if (isVerdictError(error)) {
        stopped = error;
        return;
      }
      if (error instanceof CheckFailure) {
        lastFailure = { steps: [...transcript.steps], violation: error.message, exchange: error.exchange };
        if (shrinkUntil === Number.POSITIVE_INFINITY) shrinkUntil = performance.now() + bounds.timeMs / 2;
      }
      throw error;
    } finally {
      for (const p of spec.promised ?? []) if (p.done(model)) kept.add(p.what);
      await spec.cleanup?.(model, real).catch(() => undefined);
    }
  });

  const details = await fc.check(property, {
    seed: ctx.seed,
    numRuns: bounds.runs,
    interruptAfterTimeLimit: bounds.timeMs,
    markInterruptAsFailure: false,
    endOnFailure: false,
  });
  const error = details.failed ? details.errorInstance : undefined;
  // A violation seen stands even when the budget or the transport gave out while shrinking it.
  if (!(error instanceof CheckFailure && lastFailure) && stopped) throw stopped;
  if (details.failed) {
    if (!(error instanceof CheckFailure) || !lastFailure) {
      // Anything but a judged violation is a defect of the rule itself: let the runner say so.
      throw error instanceof Error ? error : new Error(String(error));
    }
    const text = formatCounterexample(lastFailure.steps, lastFailure.violation, { ruleId: ctx.rule.id, seed: details.seed, path: details.counterexamplePath ?? undefined, runs: details.numRuns });
    throw new CheckFailure(`${lastFailure.violation}\n\n${text}`, {
      seed: details.seed,
      path: details.counterexamplePath,
      numRuns: details.numRuns,
      value: lastFailure.steps.map((s, i) => `${i + 1}. ${s.title}`),
    }, lastFailure.exchange);
  }
  if (sequences > 0 && limited === sequences) {
    ctx.inconclusive(`the rate limiter (429 or 503) ended every one of the ${sequences} sequence(s) before it could be judged to the end (the last: ${lastLimit}): the credential's rate-limit tier is too low for ${bounds.requests} requests within ${bounds.timeMs} ms; lower --max-rps, raise the tier, or lower safety.modelRequests`);
  }
  if (commands === 0) ctx.untestable({ need: 'setting', name: 'safety.modelRequests and safety.modelTimeMs', remedy: `no command ran within ${bounds.requests} requests and ${bounds.timeMs} ms: raise them` });
  ctx.observe('sequences run', { sequences, commands, requests: budget.used, interrupted: details.interrupted }, `seed ${details.seed}; bounds: ${bounds.runs} sequences, ${bounds.commands} commands, ${bounds.timeMs} ms, ${bounds.requests} requests`);
  if (limited > 0) ctx.observe('sequences ended by the rate limiter', limited, `a 429 or 503, then another after the wait it asked for, ends a sequence without a verdict (the last: ${lastLimit})`);
  for (const p of spec.promised ?? []) {
    if (!kept.has(p.what)) ctx.observe(`never judged: ${p.what}`, `no sequence of ${sequences} did it`, p.why);
  }
}
