import type { Report } from '../reports/model.ts';

/** Exit codes a CI can gate on. */
export const EXIT = {
  /** Every required rule passed (or did not apply). */
  pass: 0,
  /** A required rule failed, or was untestable without --allow-untestable (or no required rule passed). */
  fail: 1,
  /** Usage or profile error; the message says what to fix. */
  usage: 2,
  /** The target or the container engine was unreachable, the image did not start, or a required rule could not be judged for transport reasons. */
  inconclusive: 3,
  /** apicert itself failed; the message asks for a report. */
  internal: 4,
  /** Interrupted by SIGINT (128 + 2) or SIGTERM (128 + 15); the partial report was written. */
  interrupted: 130,
  terminated: 143,
} as const;

/**
 * `--allow-untestable` forgives missing prerequisites, never an empty certification: a run in
 * which no required rule passed exits 1 whatever the flag says.
 */
export function exitCodeFor(summary: Pick<Report['summary'], 'gate' | 'required'>, allowUntestable: boolean): number {
  switch (summary.gate) {
    case 'pass':
      return EXIT.pass;
    case 'fail':
      return EXIT.fail;
    case 'inconclusive':
      return EXIT.inconclusive;
    case 'untestable':
      return allowUntestable && summary.required.pass > 0 ? EXIT.pass : EXIT.fail;
  }
}
