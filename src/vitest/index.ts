/**
 * `apicert/vitest`: the rules as vitest tests, so a team runs them with its own vitest against
 * staging. The profile is the one named by APICERT_PROFILE (or given), else the embedded fake:
 *
 *   // certify.test.ts
 *   import { certificationSuite } from 'apicert/vitest';
 *   certificationSuite({ surfaces: ['v8'] });
 *
 *   APICERT_PROFILE=staging.yaml npx vitest run certify.test.ts
 *
 * One certification runs before the tests (rules run concurrently, as in the CLI); each rule is
 * then one test holding its verdict, reason and exchanges. Required rules gate as in the CLI: a
 * fail, an inconclusive or (unless allowUntestable) an untestable rule fails its test.
 */
import '../node-version.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../registry.ts';
import type { Rule, RuleResult, Surface } from '../rule/index.ts';
import { loadProfileFile, ProfileError } from '../profile/load.ts';
import { certify } from '../runner/certify.ts';
import { selectRules } from '../runner/run.ts';
import { leadingExchanges } from '../reports/evidence-text.ts';

export interface CertificationSuiteOptions {
  /** A profile file (YAML or JSON). Default: $APICERT_PROFILE; without it, the embedded reference fake. */
  profile?: string;
  surfaces?: Surface[];
  /** Rule id patterns, `*` as wildcard. */
  rules?: string[];
  seed?: number;
  /** Only rules that read; rules that change state are untestable. */
  readOnly?: boolean;
  /** Untestable required rules are reported skipped (with the reason) instead of failed. */
  allowUntestable?: boolean;
  /**
   * Every selected rule, observation rules included, must pass and must have observed an
   * exchange: the standard the reference fake is held to.
   */
  strict?: boolean;
  /** How long the certification may take (ms). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * The requests that decided the first failing case, in the order they were sent (a conflict needs
 * the first use of its key too); the last exchange of the rule only when no case names one, since
 * it is often a clean-up (a cancel) rather than what broke the rule.
 */
function reproduceCurls(r: RuleResult): string[] {
  const deciding = r.cases.find((c) => c.exchange !== undefined)?.exchange;
  if (deciding === undefined) return r.evidence.at(-1)?.curl ? [r.evidence.at(-1)!.curl!] : [];
  return [...leadingExchanges(r, deciding), r.evidence[deciding]].map((e) => e?.curl).filter((c): c is string => Boolean(c));
}

function judge(rule: Rule, result: RuleResult | undefined, options: CertificationSuiteOptions, skip: (note: string) => never): void {
  expect(result, `${rule.id} did not run`).toBeDefined();
  const r = result!;
  const why = [r.reason, ...reproduceCurls(r)].filter(Boolean).join('\nreproduce: ');
  if (options.strict) {
    expect(r.verdict, why).toBe('pass');
    expect(r.evidence.length, 'a pass with no exchange observed nothing').toBeGreaterThan(0);
    return;
  }
  if (r.verdict === 'untestable' && options.allowUntestable) skip(`untestable: ${r.reason ?? ''}`);
  if (r.verdict === 'not-applicable') skip(`not applicable: ${r.reason ?? ''}`);
  expect(r.verdict, why).toBe('pass');
}

/**
 * The profile the suite certifies. An empty value (an unset CI variable) is refused before any test
 * is declared: certifying the embedded fake instead would turn the suite green against the wrong target.
 */
function chosenProfile(given: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (given !== undefined && given.trim() === '') throw new ProfileError('certificationSuite({ profile }) is empty: name a profile file, or leave profile out to certify the embedded reference fake');
  if (given !== undefined) return given;
  const fromEnv = env.APICERT_PROFILE;
  if (fromEnv !== undefined && fromEnv.trim() === '') throw new ProfileError('APICERT_PROFILE is set but empty: name a profile file in it, or unset it to certify the embedded reference fake');
  return fromEnv;
}

/** Declares one vitest test per selected rule (required rules only, unless strict). */
export function certificationSuite(options: CertificationSuiteOptions = {}): void {
  const env = options.env ?? process.env;
  const profilePath = chosenProfile(options.profile, env);
  const selected = selectRules(RULES, { surfaces: options.surfaces, patterns: options.rules }).filter((r) => options.strict || r.level === 'required');
  const surfaces = [...new Set(selected.map((r) => r.surface))];
  describe(`apicert against ${profilePath ?? 'the embedded reference fake'}`, () => {
    const results = new Map<string, RuleResult>();
    let firstProbeFailure: string | undefined;
    beforeAll(async () => {
      const profile = profilePath ? await loadProfileFile(profilePath, env, options.profile === undefined ? { namedBy: 'APICERT_PROFILE' } : {}) : undefined;
      const run = await certify({ profile, rules: selected, seed: options.seed, readOnly: options.readOnly });
      firstProbeFailure = run.firstProbeFailure;
      for (const r of run.results) results.set(r.rule.id, r);
    }, options.timeoutMs ?? 600_000);

    it('ran every selected rule', () => {
      // A target that fails the first probe gets a report of inconclusive rules, not a run.
      expect(firstProbeFailure, firstProbeFailure).toBeUndefined();
      expect([...results.keys()].sort()).toEqual(selected.map((r) => r.id).sort());
    });

    for (const surface of surfaces) {
      describe(surface, () => {
        for (const rule of selected.filter((r) => r.surface === surface)) {
          it(rule.id, (ctx) => judge(rule, results.get(rule.id), options, (note) => ctx.skip(note)));
        }
      });
    }
  });
}
