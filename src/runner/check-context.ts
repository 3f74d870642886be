import fc from 'fast-check';
import type { z } from 'zod';
import type { ProbeClient } from '../probe/client.ts';
import { clip } from '../probe/evidence.ts';
import { resolveRole, roleName } from '../profile/roles.ts';
import type { Credential, Profile } from '../profile/schema.ts';
import type { Redactor } from '../redact/redactor.ts';
import {
  CheckFailure,
  Inconclusive,
  NotApplicable,
  TransportError,
  Untestable,
  type CheckContext,
  type Counterexample,
  type Decider,
  type Observation,
  type Prerequisite,
  type PropertyOptions,
  type Rule,
  type ServiceKey,
  type ApiSurface,
  type TargetInfo,
} from '../rule/index.ts';

const OBSERVED_TEXT_LIMIT = 1024;

/** An observed value as the report keeps it: strings clipped and redacted, depth and width bounded. */
function keptValue(value: unknown, kept: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return kept(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => keptValue(item, kept, depth + 1));
  return Object.fromEntries(Object.entries(value).slice(0, 100).map(([k, v]) => [kept(k), keptValue(v, kept, depth + 1)]));
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** Run-wide helpers a few checks need besides the probe client. */
export interface CheckServices {
  /** The run's redactor: checks register secrets they learn from responses (e.g. a webhook signing_secret). */
  redactor?: Redactor;
  /** Services by key name, and why a missing one is missing. */
  provided?: ReadonlyMap<string, unknown>;
  missing?: ReadonlyMap<string, string>;
}

/** A rule reports at most this many failing cases; the rest are counted. */
export const MAX_FAILING_CASES = 20;

/** A failing case as the check saw it; `exchange` indexes the probe's untrimmed evidence. */
export interface RecordedCase {
  reason: string;
  exchange?: number;
  counterexample?: Counterexample;
}

/**
 * The runner's check context: the one implementation of the kernel's `CheckContext`. `check`
 * records a failing case and lets the check go on; the runner turns recorded cases into `fail`.
 */
export class RunContext implements CheckContext {
  readonly observations: Observation[] = [];
  assertions = 0;
  /** Failing cases recorded so far, at most MAX_FAILING_CASES. */
  readonly cases: RecordedCase[] = [];
  /** Failing cases beyond the cap. */
  casesOmitted = 0;

  readonly rule: Rule;
  readonly target: TargetInfo;
  readonly profile: Profile;
  readonly seed: number;
  readonly http: ProbeClient;
  private readonly services: CheckServices;
  private readonly signal: AbortSignal | undefined;

  constructor(rule: Rule, target: TargetInfo, profile: Profile, seed: number, http: ProbeClient, services: CheckServices = {}, signal?: AbortSignal) {
    this.rule = rule;
    this.target = target;
    this.profile = profile;
    this.seed = seed;
    this.http = http;
    this.services = services;
    this.signal = signal;
  }

  /**
   * The exchange that decided a judgement: the one `on` names, else the latest one sent. Taken when
   * the judgement is made, so cleanup requests sent afterwards are never blamed.
   */
  private decidingExchange(on?: Decider): number | undefined {
    if (typeof on === 'number') return on;
    const linked = on === undefined ? undefined : this.http.exchangeOf(on);
    if (linked !== undefined) return linked;
    return this.http.evidence.length > 0 ? this.http.evidence.length - 1 : undefined;
  }

  /** Judges one case and stops the check when it fails (later cases depend on this one). */
  expect(condition: unknown, message: string, on?: Decider): void {
    this.assertions += 1;
    if (!condition) throw new CheckFailure(message, undefined, this.decidingExchange(on));
  }

  /**
   * Judges one case of many: a failure is recorded with its deciding exchange and the check goes on,
   * so a rule with three broken cases reports three. Returns whether the case held.
   */
  check(condition: unknown, message: string, on?: Decider): boolean {
    this.assertions += 1;
    if (condition) return true;
    this.recordCase({ reason: message, exchange: this.decidingExchange(on) });
    return false;
  }

  /** @internal also used by the runner for the failure that ended a check. */
  recordCase(failing: RecordedCase): void {
    if (this.cases.length >= MAX_FAILING_CASES) {
      this.casesOmitted += 1;
      return;
    }
    const recorded: RecordedCase = { reason: failing.reason };
    if (failing.exchange !== undefined) recorded.exchange = failing.exchange;
    if (failing.counterexample) recorded.counterexample = failing.counterexample;
    this.cases.push(recorded);
  }

  /** Validates `value` against a contract schema and returns the parsed value. */
  expectShape<S extends z.ZodType>(schema: S, value: unknown, what: string, on?: Decider): z.infer<S> {
    this.assertions += 1;
    const result = schema.safeParse(value);
    if (!result.success) throw new CheckFailure(`${what} does not match the contract: ${formatIssues(result.error)}`, undefined, this.decidingExchange(on));
    return result.data;
  }

  /** Like `check` for a contract schema: records a failing case and returns the parsed value or undefined. */
  checkShape<S extends z.ZodType>(schema: S, value: unknown, what: string, on?: Decider): z.infer<S> | undefined {
    const result = schema.safeParse(value);
    return this.check(result.success, result.success ? '' : `${what} does not match the contract: ${formatIssues(result.error)}`, on) ? result.data : undefined;
  }

  fail(message: string, on?: Decider): never {
    throw new CheckFailure(message, undefined, this.decidingExchange(on));
  }

  untestable(missing: Prerequisite): never {
    throw new Untestable(missing);
  }

  inconclusive(reason: string): never {
    throw new Inconclusive(reason);
  }

  notApplicable(reason: string): never {
    throw new NotApplicable(reason);
  }

  /** Records what the target does where the spec allows several readings or shows nothing. */
  service<T>(key: ServiceKey<T>): T | undefined {
    return this.services.provided?.get(key.name) as T | undefined;
  }

  serviceMissing(key: ServiceKey<unknown>): string | undefined {
    return this.services.missing?.get(key.name);
  }

  registerSecret(value: string | undefined, label: string): void {
    this.services.redactor?.add(value, label);
    this.http.redactAgain();
  }

  observe(subject: string, value: unknown, note?: string): void {
    // The report keeps what is observed, as it keeps evidence: read as evidence is, so the many answers that observe the same values are searched once.
    const kept = (text: string) => {
      const clipped = clip(text, OBSERVED_TEXT_LIMIT).text;
      return this.services.redactor?.evidenceText(clipped) ?? clipped;
    };
    const observation: Observation = { ruleId: this.rule.id, subject: kept(subject), value: keptValue(value, kept) };
    if (note) observation.note = kept(note);
    this.observations.push(observation);
  }

  /** Ends early, rejecting, when the check's deadline or the run's stop comes first. */
  sleep(ms: number): Promise<void> {
    const signal = this.signal;
    if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  // ---- credentials, chosen by what they hold (src/profile/roles.ts), so any profile's names work ----

  /** Every role this check asked for, resolved or not: what the declared needs are held against. */
  readonly rolesRequested = new Set<string>();

  credential(role: string): Credential {
    this.rolesRequested.add(role);
    const { credential, missing } = resolveRole(this.profile, role);
    if (!credential) this.untestable({ need: 'credential', role, remedy: missing ?? 'no credential of the profile fits it' });
    return credential;
  }

  primary(surface: ApiSurface): Credential {
    return this.credential(roleName(surface, 'primary'));
  }

  holding(surface: ApiSurface, scopes: readonly string[]): Credential {
    return this.credential(roleName(surface, 'holding', scopes));
  }

  lacking(surface: ApiSurface, scope: string): Credential {
    return this.credential(roleName(surface, 'lacking', [scope]));
  }

  otherPrincipal(surface: ApiSurface, scopes: readonly string[]): Credential {
    return this.credential(roleName(surface, 'other-principal', scopes));
  }

  expired(surface: ApiSurface): Credential {
    return this.credential(roleName(surface, 'expired'));
  }

  /**
   * Runs a fast-check property with the run's seed. A counterexample becomes a failure that names
   * the seed, the shrink path and the value; transport trouble stays inconclusive. A run that ends
   * inconclusive (the request budget or a deadline ran out) judged nothing: fast-check sees it as a
   * pass so the shrinker never adopts it as a counterexample, and the property ends inconclusive
   * unless a real failure was found.
   */
  async property<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, options: PropertyOptions<T>): Promise<void> {
    const parameters: fc.Parameters<[T]> = { seed: this.seed, numRuns: options.numRuns, endOnFailure: false };
    if (options.examples) parameters.examples = options.examples.map((e) => [e] as [T]);
    let starved: Inconclusive | undefined;
    const judged = async (value: T): Promise<void> => {
      if (starved) return;
      try {
        await predicate(value);
      } catch (e) {
        if (!(e instanceof Inconclusive) || e instanceof TransportError) throw e;
        starved = e;
      }
    };
    const details = await fc.check(fc.asyncProperty(arbitrary, judged), parameters);
    if (!details.failed) {
      if (starved) throw starved;
      this.assertions += 1;
      this.observe('property runs', details.numRuns, `seed ${details.seed}`);
      return;
    }
    this.assertions += 1;
    const error = details.errorInstance;
    if (error instanceof TransportError || error instanceof Untestable || error instanceof NotApplicable) throw error;
    const value = details.counterexample?.[0];
    // Replay the shrunk value once: the exchange that decides it is the replay's own, not one of the shrink steps.
    const replay = await predicate(value as T).then(
      () => undefined,
      (e: unknown) => (e instanceof CheckFailure ? e.exchange : undefined),
    );
    const reason = error instanceof Error ? error.message : String(error);
    throw new CheckFailure(
      `property failed after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath}): ${reason}`,
      { seed: details.seed, path: details.counterexamplePath, numRuns: details.numRuns, value },
      replay ?? this.decidingExchange(),
    );
  }
}
