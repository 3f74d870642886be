/** A judgement's every case over a hand-built journal, for suites that read what it decided of each exchange. */
import type { Profile } from '../../src/profile/schema.ts';
import { runJudgement, type Exchange, type Judge, type Judgement } from '../../src/rule/index.ts';

export interface JudgedCase {
  ok: boolean;
  reason: string;
}

/** Each case `judgement` made over `exchanges` (numbered in order), judged as `source` judges. */
export function judgementCases(judgement: Judgement, exchanges: Array<Omit<Exchange, 'index'>>, profile: Profile | undefined, source: Judge['source']): JudgedCase[] {
  const out: JudgedCase[] = [];
  const journal = exchanges.map((ex, index) => ({ ...ex, index }) as Exchange);
  runJudgement({ check: () => true, observe: () => undefined }, judgement, journal, {
    source,
    profile,
    record: (ok, reason) => {
      out.push({ ok, reason });
      return ok;
    },
  });
  return out;
}
