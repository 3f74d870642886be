/**
 * What a run runs, beyond `--surface` and `--rules` (run.ts): the rules an earlier report names
 * (`--rerun`) and the rules a team has set aside (`--exclude`). An excluded rule is never run and
 * never counted, but every report lists it with the pattern that set it aside.
 */
import type { Rule, Surface } from '../rule/index.ts';
import { closestRuleIds, EmptySelection, globRegex, selectRules } from './run.ts';

/** A rule `--exclude` set aside, with the pattern that matched it. */
export interface ExcludedRule {
  rule: Rule;
  pattern: string;
}

export interface SelectionFilter {
  surfaces?: Surface[];
  /** `--rules`: globs, each of which must select a rule. */
  patterns?: string[];
  /** `--rerun`: exactly these rule ids, and where they came from (said when none is left). */
  only?: { ids: readonly string[]; from: string };
  /** `--exclude`: globs, each of which must match a rule on the selected surfaces. */
  exclude?: string[];
}

export interface Selection {
  rules: Rule[];
  excluded: ExcludedRule[];
}

/**
 * The rules a run will judge, in catalog order. An exclusion is checked against the surfaces'
 * rules, not what is left after `--rules` or `--rerun`, so a CI line that sets a rule aside keeps
 * working when a rerun no longer holds it; a pattern that matches nothing at all is a typo (exit 2).
 */
export function selectForRun(catalog: readonly Rule[], filter: SelectionFilter): Selection {
  let rules = selectRules(catalog, { surfaces: filter.surfaces, patterns: filter.patterns });
  if (filter.only) {
    const wanted = new Set(filter.only.ids);
    rules = rules.filter((r) => wanted.has(r.id));
    if (rules.length === 0) throw new EmptySelection(`--rerun ${filter.only.from}: none of the ${wanted.size} rule(s) it names is among the rules selected here (--surface, --rules)`);
  }
  const exclude = filter.exclude ?? [];
  if (exclude.length === 0) return { rules, excluded: [] };
  const onSurfaces = catalog.filter((r) => !filter.surfaces?.length || filter.surfaces.includes(r.surface));
  const regexes = exclude.map((pattern) => ({ pattern, regex: globRegex(pattern) }));
  for (const { pattern, regex } of regexes) {
    if (!onSurfaces.some((r) => regex.test(r.id))) {
      const where = filter.surfaces?.length ? ` on --surface ${filter.surfaces.join(',')}` : '';
      throw new EmptySelection(`--exclude "${pattern}" matches no rule${where}; closest: ${closestRuleIds(pattern, onSurfaces).join(', ')} (run "apicert rules" for the list)`);
    }
  }
  const kept: Rule[] = [];
  const excluded: ExcludedRule[] = [];
  for (const rule of rules) {
    const by = regexes.find(({ regex }) => regex.test(rule.id));
    if (by) excluded.push({ rule, pattern: by.pattern });
    else kept.push(rule);
  }
  if (kept.length === 0) throw new EmptySelection(`--exclude ${exclude.join(',')} sets aside every selected rule (${excluded.length}): nothing would be judged`);
  return { rules: kept, excluded };
}
