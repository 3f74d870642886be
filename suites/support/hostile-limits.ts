import { expect } from 'vitest';

/**
 * apicert's promise to a hostile target, the short rule list and every rule alike: launcher and
 * apicert together (where Node can exec, the launcher becomes apicert and leaves nothing behind).
 */
export const RSS_CAP_MIB = 300;

/**
 * The memory cap a hostile run's title names. On Linux the sampler reads /proc, so a missing sample is a failure
 * (a sampler that never ran), never a silent skip; elsewhere there is nothing to read.
 */
export function expectUnderRssCap(peakRssMiB: number | undefined, context: string): void {
  if (process.platform === 'linux') expect(peakRssMiB, `no peak RSS sampled from /proc: ${context}`).toBeDefined();
  if (peakRssMiB !== undefined) expect(peakRssMiB, context).toBeLessThan(RSS_CAP_MIB);
}
