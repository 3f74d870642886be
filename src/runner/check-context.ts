import fc from 'fast-check';
import type { z } from 'zod';
import type { ProbeClient } from '../probe/client.ts';
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
  type Observation,
  type PropertyOptions,
  type Rule,
  type ServiceKey,
  type ApiSurface,
  type TargetInfo,
} from '../rule/index.ts';

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

/** The runner's check context: the one implementation of the kernel's `CheckContext`. */
export class RunContext implements CheckContext {
  readonly observations: Observation[] = [];
  assertions = 0;

  readonly rule: Rule;
  readonly target: TargetInfo;
  readonly profile: Profile;
  readonly seed: number;
  readonly http: ProbeClient;
  private readonly services: CheckServices;

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
    const observation: Observation = { ruleId: this.rule.id, subject, value };
    if (note) observation.note = note;
    this.observations.push(observation);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // ---- credentials, chosen by what they hold (src/profile/roles.ts), so any profile's names work ----

  /** Every role this check asked for, resolved or not: what the declared needs are held against. */
  readonly rolesRequested = new Set<string>();

  credential(role: string): Credential {
    this.rolesRequested.add(role);
    const { credential, missing } = resolveRole(this.profile, role);
    if (!credential) this.untestable(missing ?? `no credential fits the role ${role}`);
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
