/** Option parsers and output marks every apicert command shares. */
import { InvalidArgumentError } from 'commander';
import { REPORT_FORMATS, type ReportFormat } from '../reports/write.ts';
import type { Rule } from '../rule/index.ts';

export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function formats(value: string): ReportFormat[] {
  const out = list(value);
  for (const f of out) if (!(REPORT_FORMATS as readonly string[]).includes(f)) throw new InvalidArgumentError(`unknown format "${f}": use ${REPORT_FORMATS.join(', ')}`);
  return out as ReportFormat[];
}

export function seedOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new InvalidArgumentError('the seed is an integer from 0 to 2147483647');
  return n;
}

export const VERDICT_MARK: Record<string, string> = { pass: 'pass', fail: 'FAIL', 'not-applicable': 'n/a ', untestable: 'untestable', inconclusive: 'INCONCLUSIVE' };

/** Prints rules with their spec sentence, as `apicert rules` and the `--list-rules` options do. */
export function printRules(rules: readonly Rule[], json = false): void {
  if (json) {
    console.log(JSON.stringify(rules.map(({ check: _check, ...rule }) => rule), null, 2));
    return;
  }
  for (const r of rules) console.log(`${r.id}  [${r.level}, ${r.destructive}]\n    ${r.title}\n    "${r.spec.quote}" (${r.spec.document}, ${r.spec.section})\n`);
  console.log(`${rules.length} rules`);
}
