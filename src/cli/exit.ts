import type { Report } from '../reports/model.ts';

/** Exit codes a CI can gate on. */
export const EXIT = {
  /** Every required rule passed (or did not apply). */
  pass: 0,
  /** A required rule failed, or was untestable without --allow-untestable. */
  fail: 1,
  /** Usage or profile error; the message says what to fix. */
  usage: 2,
  /** The target or the container engine was unreachable, the image did not start, or a required rule could not be judged for transport reasons. */
  inconclusive: 3,
  /** apicert itself failed: a defect to report, never a verdict about the target. */
  internal: 4,
} as const;

export function exitCodeFor(gate: Report['summary']['gate'], allowUntestable: boolean): number {
  switch (gate) {
    case 'pass':
      return EXIT.pass;
    case 'fail':
      return EXIT.fail;
    case 'inconclusive':
      return EXIT.inconclusive;
    case 'untestable':
      return allowUntestable ? EXIT.pass : EXIT.fail;
  }
}
