import fc from 'fast-check';
import type { z } from 'zod';
import { CheckFailure, NotApplicable, TransportError, Untestable } from '../catalog/outcome.ts';
import type { Observation, Rule, Surface } from '../catalog/types.ts';
import type { ProbeClient } from '../probe/client.ts';
import type { Credential, Profile } from '../profile/schema.ts';
import type { Redactor } from '../redact/redactor.ts';
import type { WebhookReceiver } from '../webhooks/receiver.ts';

export interface TargetInfo {
  baseUrl: string;
  kind: 'embedded-fake' | 'remote' | 'container';
}

export interface PropertyOptions<T> {
  numRuns: number;
  /** Always tried, before the generated values: the boundaries a rule names. */
  examples?: T[];
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** Run-wide helpers a few checks need besides the probe client. */
export interface CheckServices {
  /** The run's redactor: register secrets a check learns from responses (e.g. a webhook signing_secret). */
  redactor?: Redactor;
  /** The harness's webhook receiver, when one is running for this run. */
  webhookReceiver?: WebhookReceiver;
  /** Why no webhook receiver runs (a missing profile fixture); checks that need one are untestable. */
  webhookReceiverMissing?: string;
}

/**
 * What a check sees of the run. A check returns normally only after at least one `expect`; it
 * ends early by throwing through `fail`, `untestable` or `notApplicable`.
 */
export class CheckContext {
  readonly observations: Observation[] = [];
  assertions = 0;

  readonly rule: Rule;
  readonly target: TargetInfo;
  readonly profile: Profile;
  readonly seed: number;
  readonly http: ProbeClient;
  readonly services: CheckServices;

  constructor(rule: Rule, target: TargetInfo, profile: Profile, seed: number, http: ProbeClient, services: CheckServices = {}) {
    this.rule = rule;
    this.target = target;
    this.profile = profile;
    this.seed = seed;
    this.http = http;
    this.services = services;
  }

  expect(condition: unknown, message: string): void {
    this.assertions += 1;
    if (!condition) throw new CheckFailure(message);
  }

  /** Validates `value` against a contract schema and returns the parsed value. */
  expectShape<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
    this.assertions += 1;
    const result = schema.safeParse(value);
    if (!result.success) throw new CheckFailure(`${what} does not match the contract: ${formatIssues(result.error)}`);
    return result.data;
  }

  fail(message: string): never {
    throw new CheckFailure(message);
  }

  untestable(reason: string): never {
    throw new Untestable(reason);
  }

  notApplicable(reason: string): never {
    throw new NotApplicable(reason);
  }

  /** Records what the target does where the spec allows several readings or shows nothing. */
  observe(subject: string, value: unknown, note?: string): void {
    const observation: Observation = { ruleId: this.rule.id, subject, value };
    if (note) observation.note = note;
    this.observations.push(observation);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // ---- credentials, chosen by what they hold, so any profile's role names work ----

  private usable(surface: Surface): Credential[] {
    return this.profile.credentials.filter((c) => c.surfaces.includes(surface) && !c.expired);
  }

  /** The credential with the most scopes on the surface: the caller for ordinary requests. */
  primary(surface: Surface): Credential {
    const candidates = this.usable(surface);
    const best = candidates.find((c) => c.name === 'full') ?? [...candidates].sort((a, b) => b.scopes.length - a.scopes.length)[0];
    if (!best) this.untestable(`the profile has no unexpired credential for ${surface}: add one under credentials (surfaces: [${surface}])`);
    return best;
  }

  /** A credential of the primary principal holding every scope in `scopes`. */
  holding(surface: Surface, scopes: readonly string[]): Credential {
    const primary = this.primary(surface);
    const found = this.usable(surface).find((c) => c.principal === primary.principal && scopes.every((s) => c.scopes.includes(s)));
    if (!found) this.untestable(`the profile has no ${surface} credential holding ${scopes.join(', ')}`);
    return found;
  }

  /** A credential that lacks `scope` (and preferably holds every other one). */
  lacking(surface: Surface, scope: string): Credential {
    const candidates = this.usable(surface)
      .filter((c) => !c.scopes.includes(scope))
      .sort((a, b) => b.scopes.length - a.scopes.length);
    const found = candidates[0];
    if (!found) this.untestable(`the profile has no unexpired ${surface} credential without the scope ${scope}: add one (scopes listing everything but ${scope})`);
    return found;
  }

  /** A credential of a different principal holding `scopes`. */
  otherPrincipal(surface: Surface, scopes: readonly string[]): Credential {
    const primary = this.primary(surface);
    const found = this.usable(surface).find((c) => c.principal !== primary.principal && scopes.every((s) => c.scopes.includes(s)));
    if (!found) this.untestable(`the profile has no ${surface} credential of a second principal holding ${scopes.join(', ')}: add one with a different "principal"`);
    return found;
  }

  expired(surface: Surface): Credential {
    const found = this.profile.credentials.find((c) => c.surfaces.includes(surface) && c.expired);
    if (!found) this.untestable(`the profile has no expired ${surface} token: add one with "expired: true"`);
    return found;
  }

  /**
   * Runs a fast-check property with the run's seed. A counterexample becomes a failure that names
   * the seed, the shrink path and the value; transport trouble stays inconclusive.
   */
  async property<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, options: PropertyOptions<T>): Promise<void> {
    const parameters: fc.Parameters<[T]> = { seed: this.seed, numRuns: options.numRuns, endOnFailure: false };
    if (options.examples) parameters.examples = options.examples.map((e) => [e] as [T]);
    const details = await fc.check(fc.asyncProperty(arbitrary, predicate), parameters);
    this.assertions += 1;
    if (!details.failed) {
      this.observe('property runs', details.numRuns, `seed ${details.seed}`);
      return;
    }
    const error = details.errorInstance;
    if (error instanceof TransportError || error instanceof Untestable || error instanceof NotApplicable) throw error;
    const value = details.counterexample?.[0];
    // Replay the shrunk value once so the last evidence entries are the counterexample's own requests.
    await predicate(value as T).catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new CheckFailure(`property failed after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath}): ${reason}`, {
      seed: details.seed,
      path: details.counterexamplePath,
      numRuns: details.numRuns,
      value,
    });
  }
}
