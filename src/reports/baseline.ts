/**
 * Known failures of one deployment, so a CI gates on new ones only. A YAML list of
 * `{ rule, reason, expires? }`; an entry whose rule passes now fails the run (baselines never rot).
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ProfileError } from '../profile/load.ts';

const entrySchema = z.strictObject({
  rule: z.string().min(1),
  reason: z.string().trim().min(1, 'say why the failure is accepted'),
  expires: z
    .union([z.string(), z.date()])
    .transform((v) => (v instanceof Date ? v.toISOString().slice(0, 10) : v))
    .pipe(z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD'))
    .optional(),
});
const baselineSchema = z.array(entrySchema);

export type BaselineEntry = z.infer<typeof baselineSchema>[number];

/** A baseline the user must fix; the CLI exits 2 with its message. */
export class BaselineError extends ProfileError {}

function closest(id: string, known: readonly string[]): string[] {
  const parts = id.split('.');
  for (let n = parts.length - 1; n >= 1; n--) {
    const prefix = `${parts.slice(0, n).join('.')}.`;
    const found = known.filter((k) => k.startsWith(prefix));
    if (found.length > 0) return found.slice(0, 3);
  }
  return [];
}

/** Validates a parsed baseline against the rule catalog and today's date (UTC). */
export function parseBaseline(input: unknown, source: string, knownIds: readonly string[], today: Date = new Date()): BaselineEntry[] {
  const parsed = baselineSchema.safeParse(input ?? []);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new BaselineError(`${source} is not a valid baseline (a YAML list of { rule: ID, reason: TEXT, expires: YYYY-MM-DD }):\n${lines.join('\n')}`);
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  const day = today.toISOString().slice(0, 10);
  for (const [i, entry] of parsed.data.entries()) {
    if (!knownIds.includes(entry.rule)) {
      const near = closest(entry.rule, knownIds);
      problems.push(`  - [${i}] ${entry.rule} is not a rule id${near.length ? ` (closest: ${near.join(', ')})` : ''}: "apicert rules" lists them`);
    }
    if (seen.has(entry.rule)) problems.push(`  - [${i}] ${entry.rule} is listed twice`);
    seen.add(entry.rule);
    if (entry.expires !== undefined && (Number.isNaN(Date.parse(entry.expires)) || entry.expires < day)) {
      problems.push(`  - [${i}] ${entry.rule} expired on ${entry.expires}: fix the failure, or renew the entry with a new reason and date`);
    }
  }
  if (problems.length > 0) throw new BaselineError(`${source} cannot be used:\n${problems.join('\n')}`);
  return parsed.data;
}

export async function loadBaseline(path: string, knownIds: readonly string[], today?: Date): Promise<BaselineEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new BaselineError(`cannot read the baseline ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let input: unknown;
  try {
    input = parseYaml(text);
  } catch (error) {
    throw new BaselineError(`${path} is not YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  return parseBaseline(input, path, knownIds, today);
}
