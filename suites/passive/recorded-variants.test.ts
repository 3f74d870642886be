/**
 * Silence is open, from recordings too (issue #35, Proof): for each legal variant of the fake on /v8
 * and /v1, the recording of the certify run judged passively (with the run's profile, as
 * `judge-traffic --profile` gives it) gives the active verdict on every rule of the run that has a
 * judgement. To keep the cost small each variant runs only the rules of its area and of the areas
 * whose traffic it bends (AFFECTS); suites/mcp/recorded-choices.test.ts does the same for /mcp.
 */
import { describe, expect, it } from 'vitest';
import { VARIANTS, type VariantId } from '../../src/fake/variants/index.ts';
import { RULES } from '../../src/registry.ts';
import { documentedVariants } from '../support/documented-variants.ts';
import { fewerModelRuns, recordedDifferences } from './record.ts';

/**
 * Areas, beyond its own, whose rules read the traffic a variant of this area bends: a run is born of
 * an execute, an error document or a refusal's status is what the auth and validation rules judge,
 * a trace is named by a mission's events. Areas with no judged rule of their own (intents, chat) are
 * judged by the rules that probe any endpoint.
 */
const AFFECTS: Record<string, readonly string[]> = {
  'v8.contract': ['v8.missions.create.*', 'v8.missions.signals.*', 'v8.errors.*'],
  // A cancel of a mission that ended: the generated rules judge every request of the recording.
  'v8.missions': ['v8.contract.generated.*'],
  'v8.errors': ['v8.missions.create.*', 'v8.missions.auth.*', 'v8.memory.*', 'v8.capabilities.*'],
  // A trace read within the index bound: the generated rules judge every request of the recording.
  'v8.traces': ['v8.missions.events.*', 'v8.contract.generated.*'],
  'v8.intents': ['v8.contract.*', 'v8.errors.*'],
  // A gateway-wide limit besides the per-principal one: no rule of its own (the load rule per-principal judges it), what the 429s bend.
  'v8.rate-limit': ['v8.missions.rate-limit-429', 'v8.missions.create.*'],
  // A cancel of a run that ended: the generated rules judge every request of the recording.
  'v1.runs': ['v1.execute.turn.*', 'v1.execute.task.*', 'v1.contract.generated.*'],
  'v1.errors': ['v1.auth.*', 'v1.webhooks.url.*', 'v1.runs.approve.*'],
  'v1.chat': ['v1.auth.*', 'v1.versioning.*', 'v1.errors.*'],
};

/** Variants only the requests generated from the contract reach (a null signal payload). */
const REACHED_BY: Record<string, readonly string[]> = {
  'v8.missions/signal-null-payload-accepted': ['v8.contract.generated.*'],
  // The echoed purpose is what the generated rules' learned ids must not take for a resource's id.
  'v8.memory/purpose-echoed': ['v8.contract.generated.*'],
  // Only the scope matrix reads the fixture skill as another principal.
  'v8.skills/shared-catalogue': ['v8.auth.scope-matrix'],
  // Only the probe catalogue sends what these answer: a number past 2^53, a chunked body, a 1 MiB body, control characters, Accept: image/png, a key in the query.
  'v8.contract/big-integers-accepted': ['v8.catalogue.*'],
  'v8.contract/length-required': ['v8.catalogue.*'],
  'v8.contract/body-limit-413': ['v8.catalogue.*'],
  'v8.contract/refuses-control-characters': ['v8.catalogue.*'],
  'v1.contract/not-acceptable-406': ['v1.catalogue.*'],
  'v1.contract/query-token': ['v1.catalogue.*'],
  'v1.contract/length-required': ['v1.catalogue.*'],
  'v1.contract/body-limit-413': ['v1.catalogue.*'],
  'v8.contract/http-layer-400-text': ['v8.catalogue.*'],
  'v1.contract/http-layer-400-text': ['v1.catalogue.*'],
};


function patternsOf(variant: string): string[] {
  const area = variant.split('/')[0]!;
  // An area may have no rule of its own (v8.rate-limit: the load rules judge it); its AFFECTS then say what it bends.
  const own = RULES.some((r) => r.id.startsWith(`${area}.`)) ? [`${area}.*`] : [];
  return [...own, ...(AFFECTS[area] ?? []), ...(REACHED_BY[variant] ?? [])];
}

const CASES = VARIANTS.filter((v) => v.id.startsWith('v8.') || v.id.startsWith('v1.')).map((v) => [v.id] as const);

describe.concurrent('recordings of /v8 and /v1 runs under legal choices', () => {
  it('covers every /v8 and /v1 variant docs/legal-variation.md lists', () => {
    expect(CASES.map(([id]) => id).sort()).toEqual(documentedVariants(['v8', 'v1']));
  });

  it.each(CASES)('%s: the recording gives the active verdict on every judged rule of its areas', async (id) => {
    const patterns = patternsOf(id);
    const surface = id.startsWith('v8.') ? 'v8' : 'v1';
    expect(await recordedDifferences({ surfaces: [surface], patterns, variants: [id as VariantId], seed: 17, adjustEmbeddedProfile: fewerModelRuns })).toEqual([]);
  }, 180_000);
});
