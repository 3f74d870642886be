import { variantRuns } from './support/variant-runs.ts';

// The v1 surface's share of the variant runs (suites/support/variant-runs.ts); one file per surface so the CI workers share them.
variantRuns('v1');
