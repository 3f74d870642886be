import type { Arbitrary } from 'fast-check';
import type { z } from 'zod';
import type { Credential, Profile } from '../profile/schema.ts';
import type { Http } from './exchange.ts';
import type { Prerequisite } from './prerequisite.ts';
import type { ApiSurface, Observation, RuleMeta } from './types.ts';

export interface TargetInfo {
  baseUrl: string;
  kind: 'embedded-fake' | 'remote' | 'container';
}

export interface PropertyOptions<T> {
  numRuns: number;
  /** Always tried, before the generated values: the boundaries a rule names. */
  examples?: T[];
}

/**
 * A run-wide service a few checks need besides the probe (the webhook receiver, say). The module
 * that provides it owns the key, so the kernel knows nothing of what the services are.
 */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: carries the service's type. */
  readonly type?: T;
}

export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}

/**
 * Work several rules of one run share (a generated probe run that each oracle rule judges): the
 * first rule to ask starts it, the others await the same promise. Keys name their owner.
 */
export const RUN_MEMO = serviceKey<Map<string, Promise<unknown>>>('run-memo');

/**
 * What decided a judgement: a response, stream or recorded delivery that `ctx.http` produced, or
 * an index into `ctx.http.evidence`. Without one, the exchange sent last at that moment decides.
 */
export type Decider = object | number;

/**
 * What a check sees of the run. A check returns normally only after at least one `expect` or
 * `check`; it ends early by throwing through `expect`, `fail`, `untestable` or `notApplicable`.
 * A rule with several independent cases judges each with `check`, so every broken one is reported.
 */
export interface CheckContext {
  readonly rule: RuleMeta;
  readonly target: TargetInfo;
  readonly profile: Profile;
  readonly seed: number;
  readonly http: Http;
  readonly observations: readonly Observation[];

  /** Judges a case and stops the check when it fails (when later cases depend on this one). */
  expect(condition: unknown, message: string, on?: Decider): void;
  /**
   * Judges one case of many: a failure is recorded with its deciding exchange and the check goes
   * on. Returns whether the case held. Inside `property` predicates use `expect`.
   */
  check(condition: unknown, message: string, on?: Decider): boolean;
  /** Validates `value` against a contract schema and returns the parsed value. */
  expectShape<S extends z.ZodType>(schema: S, value: unknown, what: string, on?: Decider): z.infer<S>;
  /** Like `check` for a contract schema: records a failing case and returns the parsed value, or undefined. */
  checkShape<S extends z.ZodType>(schema: S, value: unknown, what: string, on?: Decider): z.infer<S> | undefined;
  fail(message: string, on?: Decider): never;
  /**
   * Only for a prerequisite the profile or the run lacks (a fixture, a credential, a safety switch,
   * the receiver), as a value: the verdict's reason is written from it.
   */
  untestable(missing: Prerequisite): never;
  /**
   * The rule cannot be judged and no prerequisite is missing: the target broke a setup step
   * ("setup failed: ... answered X"), or a bound ran out. Gates (exit 3).
   */
  inconclusive(reason: string): never;
  notApplicable(reason: string): never;
  /** Records what the target does where the spec allows several readings or shows nothing. */
  observe(subject: string, value: unknown, note?: string): void;
  sleep(ms: number): Promise<void>;

  /** A run-wide service, or the reason it is missing (checks that need it are untestable). */
  service<T>(key: ServiceKey<T>): T | undefined;
  serviceMissing(key: ServiceKey<unknown>): string | undefined;
  /** Registers a secret a check learned from a response (a webhook signing_secret): never printed. */
  registerSecret(value: string | undefined, label: string): void;

  /** The credential that fits a role (src/profile/roles.ts), or untestable naming what to add. */
  credential(role: string): Credential;
  /** The credential with the most scopes on the surface: the caller for ordinary requests. */
  primary(surface: ApiSurface): Credential;
  /** A credential of the primary principal holding every scope in `scopes`. */
  holding(surface: ApiSurface, scopes: readonly string[]): Credential;
  /** A credential that lacks `scope` (and preferably holds every other one). */
  lacking(surface: ApiSurface, scope: string): Credential;
  /** A credential of a different principal holding `scopes`. */
  otherPrincipal(surface: ApiSurface, scopes: readonly string[]): Credential;
  expired(surface: ApiSurface): Credential;

  /**
   * Runs a fast-check property with the run's seed. A counterexample becomes a failure that names
   * the seed, the shrink path and the value; transport trouble stays inconclusive.
   */
  property<T>(arbitrary: Arbitrary<T>, predicate: (value: T) => Promise<void>, options: PropertyOptions<T>): Promise<void>;
}
