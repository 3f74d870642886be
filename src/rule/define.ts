import type { CheckContext } from './context.ts';
import type { Exchange } from './journal.ts';
import { judgeOwnExchanges, type Judgement } from './judgement.ts';
import { Inconclusive } from './outcome.ts';
import type { Rule } from './rule.ts';
import { SURFACES, type Destructiveness, type Needs, type SpecDocument, type Surface } from './types.ts';

const ID_PATTERN = new RegExp(`^(${SURFACES.join('|')})\\.[a-z0-9-]+(\\.[a-z0-9-]+)+$`);

/**
 * Sends what makes the deployment show the behaviour. A provocation shared by several rules (one
 * run of generated probes, sent by whichever rule asks first) returns the exchanges that run
 * caused, which the rule then judges in place of its own check's.
 */
export type Provocation = (ctx: CheckContext) => Promise<void | readonly Exchange[]>;

/**
 * How a rule is judged: by its one judgement over the exchanges that `provoke` caused (the rule's
 * active check is then only the provocation), or, for a rule only an active probe can show, by its
 * own `check` (saying why in `activeOnly`, when the rule has one).
 */
export type RuleBody =
  | { judgement: Judgement; provoke: Provocation; check?: undefined }
  | { check: Rule['check']; judgement?: undefined; provoke?: undefined };

/** A rule as written in a check file; what its section states once is left out. */
export type RuleDeclaration = Omit<Rule, 'needs' | 'destructive' | 'surface' | 'spec' | 'check' | 'judgement'> &
  RuleBody & {
    surface?: Surface;
    destructive?: Destructiveness;
    needs?: Needs;
    spec: { document?: SpecDocument; section?: string; quote: string; url?: string };
  };

/** What every rule of one spec section shares. */
export interface SectionDefaults {
  surface: Surface;
  document: SpecDocument;
  section?: string;
  url?: string;
  destructive?: Destructiveness;
  needs?: Needs;
}

function mergeNeeds(base: Needs | undefined, own: Needs | undefined): Needs {
  const out: Needs = { ...base, ...own };
  if (base?.credentials || own?.credentials) out.credentials = [...new Set([...(base?.credentials ?? []), ...(own?.credentials ?? [])])];
  if (base?.fixtures || own?.fixtures) out.fixtures = [...new Set([...(base?.fixtures ?? []), ...(own?.fixtures ?? [])])];
  return out;
}

/** Declares the rules of one section: `const rule = section({...}); export const x = rule({...})`. */
export function section(defaults: SectionDefaults): (declaration: RuleDeclaration) => Rule {
  return (declaration) => {
    const surface = declaration.surface ?? defaults.surface;
    const sectionName = declaration.spec.section ?? defaults.section;
    if (!sectionName) throw new Error(`rule ${declaration.id} names no spec section and its section has no default`);
    const spec: Rule['spec'] = { document: declaration.spec.document ?? defaults.document, section: sectionName, quote: declaration.spec.quote };
    const url = declaration.spec.url ?? defaults.url;
    if (url) spec.url = url;
    return defineRule({
      ...declaration,
      surface,
      destructive: declaration.destructive ?? defaults.destructive ?? 'read',
      needs: mergeNeeds(defaults.needs, declaration.needs),
      spec,
    });
  };
}

/** Declares one rule; the id must start with its surface and area so it sorts with its section. */
export function defineRule(rule: Omit<Rule, 'needs' | 'check' | 'judgement'> & RuleBody & { needs?: Needs }): Rule {
  if (!ID_PATTERN.test(rule.id) || !rule.id.startsWith(`${rule.surface}.`)) {
    throw new Error(`rule id ${rule.id} must look like <surface>.<area>.<name> and start with ${rule.surface}`);
  }
  const { provoke, ...rest } = rule;
  if (rest.judgement && provoke) {
    const judgement = rest.judgement;
    return {
      ...rest,
      judgement,
      needs: rule.needs ?? {},
      check: async (ctx) => {
        let shared: void | readonly Exchange[];
        try {
          shared = await provoke(ctx);
        } catch (error) {
          // A rule of the whole run judges every check's exchanges, its own provocation's only a part: one stopped short (a limiter, a transport failure) leaves the run's to judge.
          if (rule.judgesTheRun && error instanceof Inconclusive) return judgeOwnExchanges(ctx, judgement, undefined, error);
          throw error;
        }
        judgeOwnExchanges(ctx, judgement, shared ?? undefined);
      },
    };
  }
  return { ...rest, check: rest.check!, needs: rule.needs ?? {} };
}
