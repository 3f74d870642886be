/** One certification of the fake served as a "remote" target, shared by the report suites. */
import { RULES } from '../../src/registry.ts';
import type { RuleResult, Verdict } from '../../src/rule/index.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake } from '../../src/fake/server.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { BaselineEntry } from '../../src/reports/baseline.ts';
import { buildReport, type Report } from '../../src/reports/model.ts';
import { certify } from '../../src/runner/certify.ts';

export interface Run {
  profile: Profile;
  results: RuleResult[];
  report: Report;
  /** The same run's report, rebuilt with some verdicts replaced and another policy. */
  variant(options: { verdicts?: Record<string, Verdict>; allowUntestable?: boolean; strict?: boolean; baseline?: BaselineEntry[] }): Report;
}

export async function certifyFake(faults: FaultId[], patterns: string[], seed = 42): Promise<Run> {
  const fake = await startFake({ faults });
  const profile = embeddedProfile(fake);
  try {
    const { report, results } = await certify({ profile, patterns, seed, invocation: 'npx apicert certify --profile fake.json' });
    const variant: Run['variant'] = (options) =>
      buildReport({
        results: results.map((r) => {
          const verdict = options.verdicts?.[r.rule.id];
          return verdict ? { ...r, verdict, reason: `${verdict} (set by the test)`, cases: verdict === 'fail' ? r.cases : [] } : r;
        }),
        version: report.harness.version,
        target: { baseUrl: report.target.baseUrl, kind: report.target.kind },
        profile,
        catalog: RULES,
        startedAt: new Date(report.run.startedAt),
        finishedAt: new Date(report.run.finishedAt),
        seed,
        requests: report.run.requests,
        invocation: 'npx apicert certify --profile fake.json',
        allowUntestable: options.allowUntestable,
        strict: options.strict,
        baseline: options.baseline ? { file: 'baseline.yaml', entries: options.baseline } : undefined,
      });
    return { profile, results, report, variant };
  } finally {
    await fake.close();
  }
}
