/** Option parsers and output marks every apicert command shares. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { REPORT_FORMATS, type ReportFormat } from '../reports/write.ts';
import type { Rule } from '../rule/index.ts';
import { UsageError } from './errors.ts';

/**
 * An empty value given on purpose (an unset CI variable behind `--sign "$KEY"`) is a mistake to stop
 * on, never "the flag was not given": the run would go on without what was asked for, and say nothing.
 * One wording for every flag: `give` says what the flag takes, `without` what leaving it out does.
 */
export function emptyValue(flag: string, give: string, without?: string): UsageError {
  return new UsageError(`${flag} was given an empty value (an unset variable?): give ${give}${without ? `, or leave ${flag} out ${without}` : ''}`);
}

/** The parser of a file, folder or value option: a blank value is `emptyValue`, any other goes to `parse` (as given, by default). */
export function nonBlank<T = string>(flag: string, give: string, without?: string, parse?: (value: string, previous: T) => T): (value: string, previous: T) => T {
  return (value, previous) => {
    if (value.trim() === '') throw emptyValue(flag, give, without);
    return parse ? parse(value, previous) : (value as T);
  };
}

export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function formats(value: string): ReportFormat[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError(`no format given: use one or more of ${REPORT_FORMATS.join(', ')}`);
  for (const f of out) if (!(REPORT_FORMATS as readonly string[]).includes(f)) throw new InvalidArgumentError(`unknown format "${f}": use ${REPORT_FORMATS.join(', ')}`);
  return out as ReportFormat[];
}

export function seedOf(value: string): number {
  // Number('') is 0: a blank seed would run as seed 0.
  if (value.trim() === '') throw emptyValue('--seed', 'an integer from 0 to 2147483647', 'for a random seed');
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new InvalidArgumentError('the seed is an integer from 0 to 2147483647');
  return n;
}

export function patternList(value: string): string[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError('no rule pattern given: name rule ids or globs, e.g. "v8.missions.*" (see "apicert rules")');
  return out;
}

export const VERDICT_MARK: Record<string, string> = { pass: 'pass', fail: 'FAIL', warn: 'WARN', observed: 'obs (fail)', expected: 'expected', 'not-applicable': 'n/a ', untestable: 'untestable', inconclusive: 'INCONCLUSIVE' };

/** Prints rules with their spec sentence, as `apicert rules` and the `--list-rules` options do. */
export function printRules(rules: readonly Rule[], json = false): void {
  if (json) {
    console.log(JSON.stringify(rules.map(({ check: _check, ...rule }) => rule), null, 2));
    return;
  }
  for (const r of rules) console.log(`${r.id}  [${r.level}, ${r.destructive}]\n    ${r.title}\n    "${r.spec.quote}" (${r.spec.document}, ${r.spec.section})\n`);
  console.log(`${rules.length} rules`);
}

/** What `--rules`, `--seed`, the report options and `--list-rules` give a command's action. */
export interface RunCliOptions {
  rules?: string[];
  seed?: number;
  out: string;
  format: ReportFormat[];
  allowUntestable?: boolean;
  quiet?: boolean;
  listRules?: boolean;
}

/** The options the side commands share with `certify`: rule selection, seed, reports, exit policy. */
export function addRunOptions(command: Command, defaultOut: string, what: string): Command {
  return command
    .option('--rules <globs>', 'rule ids to run, comma separated, * as wildcard', patternList)
    .option('--seed <n>', 'seed printed in the report', seedOf)
    .option('--out <dir>', 'directory for the reports', nonBlank('--out', 'a folder for the reports', `to write them under ${defaultOut}`), defaultOut)
    .addOption(new Option('--format <list>', `report formats, comma separated (${REPORT_FORMATS.join(', ')})`).argParser(formats).default([...REPORT_FORMATS]))
    .option('--allow-untestable', `exit 0 even when required rules are untestable (${what})`)
    .option('-q, --quiet', 'print only the summary (-q as certify takes it)')
    .option('--list-rules', 'list the rules with their spec sentences and exit');
}
