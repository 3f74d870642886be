/**
 * What a load scenario needs from its runtime: requests sent in parallel. k6 implements it with
 * http.batch (load/lib/k6.ts), vitest with fetch (suites/load/support.ts), so the same scenario
 * code is judged in both. Plus what a scenario hands back: judgments and figures.
 */
import type { AnswerCase } from '../traffic/answer-cases.ts';
import { isRecord, parseJson } from '../util/json.ts';

export interface LoadRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** k6 `name` tag: phase and endpoint, never a per-run id, so metrics do not explode. */
  name: string;
  /** Statuses this phase expects; k6 counts anything else in http_req_failed. */
  expect: readonly number[];
  timeoutMs?: number;
}

export interface LoadResponse {
  /** 0 when no response arrived (connection refused, timeout). */
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
  /** Transport trouble, when status is 0. */
  error?: string;
  /** No answer because the request's own timeout ran out (not a refused or reset connection). */
  timedOut?: boolean;
}

export interface Transport {
  batch(requests: readonly LoadRequest[]): Promise<LoadResponse[]>;
  /** Waits (k6: sleep, which holds the VU; vitest: a timer). */
  sleep(ms: number): Promise<void>;
}

/** One judgment of one rule: `check` is a fixed sentence (no per-run numbers), so k6 groups them. */
export interface Judgment {
  rule: string;
  ok: boolean;
  check: string;
}

/** A number worth reporting (where a limit started, how many readers): merged by min, max, count. */
export interface Figure {
  name: string;
  value: number;
}

export interface StepResult {
  judgments: Judgment[];
  figures: Figure[];
}

/** Collects what one iteration judged. */
export class Verdicts implements StepResult {
  readonly judgments: Judgment[] = [];
  readonly figures: Figure[] = [];

  judge(rule: string, ok: boolean, check: string): boolean {
    this.judgments.push({ rule, ok, check });
    return ok;
  }

  /** One case of a judgement shared with certify (src/traffic/answer-cases.ts), under its fixed sentence. */
  judgeCase(rule: string, c: AnswerCase): boolean {
    return this.judge(rule, c.ok, c.check);
  }

  /**
   * Cases of one answer, as one judgment per sentence (a sentence holds when each of its cases
   * did): a stream's per-event cases stay one judgment per reader. Returns whether all held.
   */
  judgeCases(rule: string, cases: readonly AnswerCase[]): boolean {
    const held = new Map<string, boolean>();
    for (const c of cases) held.set(c.check, (held.get(c.check) ?? true) && c.ok);
    let all = true;
    for (const [check, ok] of held) all = this.judge(rule, ok, check) && all;
    return all;
  }

  figure(name: string, value: number): void {
    this.figures.push({ name, value });
  }
}

/** A JSON object body, or undefined for anything else. */
export function parseJsonObject(body: string): Record<string, unknown> | undefined {
  const parsed = parseJson(body);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}
