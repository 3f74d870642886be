/**
 * Legal choices only the probe catalogue and the generated requests reach (a chunked body, a 1 MiB
 * body, an integer past 2^53-1, an Accept naming no JSON, control characters, a /v1 key in the query):
 * under each, the recording of the certify run judged passively gives the active verdict on the
 * catalogue and generated rules, as suites/passive/recorded-variants.test.ts asks of every variant
 * over its area's rules (which do not send these requests).
 */
import { describe, expect, it } from 'vitest';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { fewerModelRuns, recordedDifferences } from './record.ts';

const CASES = [
  'v8.contract/big-integers-accepted',
  'v8.contract/lenient-json',
  'v8.contract/length-required',
  'v8.contract/body-limit-413',
  'v8.contract/empty-signal-422',
  'v8.contract/refuses-control-characters',
  'v1.contract/task-event-stream-406',
  'v1.contract/not-acceptable-406',
  'v1.contract/lenient-json',
  'v1.contract/query-token',
  'v1.contract/length-required',
  'v1.contract/body-limit-413',
] as const;

describe.concurrent('recordings under choices the catalogue reaches', () => {
  it.each(CASES.map((id) => [id] as const))('%s: the recording gives the active verdict on the catalogue and generated rules', async (id) => {
    const surface = id.startsWith('v8.') ? 'v8' : 'v1';
    const patterns = [`${surface}.catalogue.*`, `${surface}.contract.generated.*`];
    expect(await recordedDifferences({ surfaces: [surface], patterns, variants: [id as VariantId], seed: 17, adjustEmbeddedProfile: fewerModelRuns })).toEqual([]);
  }, 300_000);
});
