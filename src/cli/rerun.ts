/**
 * `certify --rerun REPORT`: the rules that gate and that an earlier report.json did not pass (fail,
 * inconclusive, untestable), with its seed, as pytest's `--last-failed` does. Read before any request, so a
 * missing or malformed report is exit 2 with nothing sent.
 */
import { readFile } from 'node:fs/promises';
import { reportJsonOf } from '../reports/run-folder.ts';
import { z } from 'zod';
import type { Verdict } from '../rule/index.ts';
import { UsageError } from './errors.ts';

/** What a rerun takes again: every verdict that did not settle the rule. */
export const RERUN_VERDICTS: readonly Verdict[] = ['fail', 'inconclusive', 'untestable'];

/** Only what a rerun reads: a report of any later version still carries these. */
const earlierReport = z.object({
  run: z.object({ seed: z.number().int().min(0) }),
  rules: z.array(z.object({ id: z.string().min(1), verdict: z.string(), level: z.string().optional() })),
  summary: z.object({ strict: z.boolean().optional() }).optional(),
  digest: z.string().optional(),
  target: z.object({ baseUrl: z.string(), kind: z.string() }).optional(),
});

export interface RerunSelection {
  /** The report.json the rules came from (a folder given is read as its report.json). */
  from: string;
  /** Empty when the report has nothing to rerun: the command says so and exits 0. */
  ids: string[];
  seed: number;
  /** The report's own digest, so the rerun's report names the run it took again. */
  digest?: string;
  /** Rules left out because they gated nothing in that run (SHOULD outside --strict, observations). */
  notGating: number;
  /** What that run certified, when its report says. */
  target?: { baseUrl: string; kind: string };
}

/**
 * Why rerunning `rerun` against `target` may not be what was meant, or undefined: the report certified
 * another deployment. The built-in fake listens on a new port each run, so a report of it names none.
 */
export function otherTarget(rerun: RerunSelection, target: string | undefined): string | undefined {
  if (!rerun.target || rerun.target.kind === 'embedded-fake' || target === undefined) return undefined;
  const same = (a: string) => {
    try {
      return new URL(a).href.replace(/\/+$/, '');
    } catch {
      return a;
    }
  };
  if (same(rerun.target.baseUrl) === same(target)) return undefined;
  return `${rerun.from} certified ${rerun.target.baseUrl}, not ${target}: its rules and seed are rerun against ${target} all the same (give that deployment's profile to rerun it there)`;
}

export async function loadRerun(path: string): Promise<RerunSelection> {
  const from = await reportJsonOf(path);
  let text: string;
  try {
    text = await readFile(from, 'utf8');
  } catch (error) {
    throw new UsageError(`--rerun ${path}: cannot read ${from} (${(error as NodeJS.ErrnoException).code ?? String(error)}): give the report.json of an earlier run, e.g. reports/latest/report.json`);
  }
  let parsed: z.infer<typeof earlierReport>;
  try {
    parsed = earlierReport.parse(JSON.parse(text));
  } catch {
    throw new UsageError(`--rerun ${path}: ${from} is not an apicert report.json (it needs run.seed and rules with id and verdict): give the report.json an earlier certify run wrote`);
  }
  const unsettled = parsed.rules.filter((r) => (RERUN_VERDICTS as readonly string[]).includes(r.verdict));
  // Only what held the gate: a SHOULD warning (outside --strict) or an observation never failed the run,
  // and a rerun of it alone would judge nothing that gates, which is inconclusive (exit 3), not the pass the loop waits for.
  const strict = parsed.summary?.strict ?? false;
  const gating = unsettled.filter((r) => r.level === undefined || r.level === 'required' || (r.level === 'should' && strict));
  return { from, ids: gating.map((r) => r.id), seed: parsed.run.seed, notGating: unsettled.length - gating.length, ...(parsed.digest ? { digest: parsed.digest } : {}), ...(parsed.target ? { target: parsed.target } : {}) };
}
