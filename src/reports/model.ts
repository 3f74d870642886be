import { createHash } from 'node:crypto';
import { fingerprintableNetwork } from '../profile/network.ts';
import type { Profile } from '../profile/schema.ts';
import { type FailingCase, type Level, type Observation, type Rule, type RuleResult, type Surface, type Verdict, VERDICTS, withRunCommand } from '../rule/index.ts';
import { canonicalJson, canonicalPieces } from '../util/json.ts';
import type { BaselineEntry } from './baseline.ts';
import { passingSample } from './trim.ts';

export const REPORT_VERSION = '1.1';

export type VerdictCounts = Record<Verdict, number>;

/** How a baseline entry met this run: the listed failure happened (`expected`) or the rule passes now (`stale`). */
export interface BaselineMatch {
  reason: string;
  expires?: string;
  status: 'expected' | 'stale';
}

export interface ReportRule {
  id: string;
  title: string;
  surface: Surface;
  level: Level;
  destructive: 'read' | 'mutate';
  spec: RuleResult['rule']['spec'];
  verdict: Verdict;
  reason?: string;
  durationMs: number;
  evidence: RuleResult['evidence'];
  evidenceOmitted: number;
  counterexample?: RuleResult['counterexample'];
  /** Every failing case, each with the index in `evidence` of the exchange that decided it. */
  cases: FailingCase[];
  casesOmitted: number;
  /** The command that runs this rule alone with the same seed (for every rule that did not pass). */
  rerun?: string;
  baseline?: BaselineMatch;
  /** Passive runs: how many recorded exchanges the rule judged. */
  exchanges?: number;
  /** Active runs: requests the rule sent (a probe run shared by a family counts once, for the rule that sent it). */
  requests?: number;
}

export type Gate = 'pass' | 'fail' | 'inconclusive' | 'untestable';

/** A rule `--exclude` set aside: never run, never counted, never a pass; listed so a reader sees the gap. */
export interface ExcludedReportRule {
  id: string;
  title: string;
  surface: Surface;
  level: Level;
  /** The `--exclude` pattern that matched it. */
  excludedBy: string;
}

/** The filters a run was given, and the catalogue they chose from. */
export interface RunSelection {
  /** How many rules the catalogue held that the filters chose from. */
  catalogue: number;
  /** `--surface`, as given (absent: every surface). */
  surfaces?: Surface[];
  /** `--rules` patterns, as given (absent: every rule). */
  rules?: string[];
  /** `--exclude` patterns, as given. */
  exclude?: string[];
  /** `judge-client --scenario`: the scenarios the client was judged in. */
  scenarios?: string[];
  /** `--rerun`: the report whose rules this run took again, as given, with its digest when it had one. */
  rerunOf?: { report: string; digest?: string };
}

export interface Report {
  reportVersion: typeof REPORT_VERSION;
  /** `rulesetHash` identifies the rule catalog (ids, levels, sentences) this harness judged with. */
  harness: { name: 'apicert'; version: string; node: string; rulesetHash: string };
  /**
   * `container`: apicert started the target from `image` (certify --image). `profileFingerprint`
   * identifies the profile without any token in it (absent when the run had none).
   */
  target: { baseUrl: string; kind: 'embedded-fake' | 'remote' | 'container'; faults?: string[]; variants?: string[]; image?: string; profileFingerprint?: string };
  run: {
    startedAt: string;
    finishedAt: string;
    durationMs: number;
    seed: number;
    surfaces: Surface[];
    requests: number;
    allowUntestable: boolean;
    /** The baseline file given with --baseline, with its entries. */
    baseline?: { file: string; entries: number };
    /** Why the run ended before every rule was judged: its deadline, an interrupt, a failed first probe. */
    stopped?: string;
    /** What the user should know about the run itself (a secret too short to redact everywhere). */
    warnings?: string[];
    /**
     * `passive`: the rules judged recorded traffic (judge-traffic, proxy) and sent nothing; `requests`
     * then counts the recorded exchanges. Absent for an active run.
     */
    mode?: 'passive';
    /**
     * The proxy: exchanges that passed but were dropped from its record before judging, to keep
     * within `limits` (--max-exchanges, --max-kept-bytes). The verdicts judge the
     * `requests` exchanges the record held: a subset of the traffic. Absent when none was dropped.
     */
    dropped?: { exchanges: number; limits: string };
    /** Active runs: requests sent per rule family (`<surface>.<area>`), most first. */
    requestsByFamily?: Record<string, number>;
    /**
     * What the run was asked to cover, so a signed gate says how much it stands on (absent from
     * reports written before apicert recorded it, and from runs that select no rules: a client, a receiver).
     */
    selection?: RunSelection;
  };
  summary: {
    required: VerdictCounts;
    /** SHOULD rules: a failure is a warning, and gates only in a strict run. */
    should: VerdictCounts;
    observation: VerdictCounts;
    gate: Gate;
    /** Whether SHOULD rules gated this run (`--strict`). */
    strict: boolean;
    /** How many rules the filters selected, and how many of them reached pass or fail. */
    selected: number;
    judged: number;
    /** SHOULD rules that failed: warnings in a run that is not strict. */
    warnings: string[];
    /** Required failures a baseline entry lists: shown, not gating. */
    expectedFailures: string[];
    /** Baseline entries whose rule passes now: each fails the run until it is removed. */
    staleBaseline: string[];
  };
  rules: ReportRule[];
  /** Rules `--exclude` set aside (absent when none was). */
  excluded?: ExcludedReportRule[];
  observations: Observation[];
  /** SHA-256 over the canonical JSON of everything above, so a signed digest covers the whole report. */
  digest: string;
}

export function emptyCounts(): VerdictCounts {
  return Object.fromEntries(VERDICTS.map((v) => [v, 0])) as VerdictCounts;
}

/** Whether a rule's verdict can hold the gate: required rules, SHOULD rules in a strict run, never observations. */
export function gates(rule: Pick<ReportRule, 'level'>, strict: boolean): boolean {
  return rule.level === 'required' || (rule.level === 'should' && strict);
}

/**
 * What one rule does to the run, the single reading the gate, the exit code and JUnit share:
 * `failure` (fails the run), `error` (could not be judged and that gates), `skipped` (does not gate,
 * with a reason), `expected` (a baselined failure), `warning` (a SHOULD rule failed outside --strict),
 * `none` (passed or observed).
 */
export type Effect = 'failure' | 'error' | 'skipped' | 'expected' | 'warning' | 'none';

/** What decides how a verdict weighs: `--strict`, and `--allow-untestable` (void when no required rule passed). */
export interface GatePolicy {
  strict: boolean;
  allowUntestable: boolean;
}

export function policyOf(report: Pick<Report, 'run' | 'summary'>): GatePolicy {
  return { strict: report.summary.strict, allowUntestable: report.run.allowUntestable && report.summary.required.pass > 0 };
}

export function effectOf(rule: Pick<ReportRule, 'level' | 'verdict' | 'baseline'>, policy: GatePolicy): Effect {
  if (!gates(rule, policy.strict)) {
    if (rule.level === 'should' && rule.verdict === 'fail') return 'warning';
    return rule.verdict === 'untestable' || rule.verdict === 'inconclusive' || rule.verdict === 'not-applicable' ? 'skipped' : 'none';
  }
  if (rule.baseline?.status === 'stale') return 'failure';
  switch (rule.verdict) {
    case 'fail':
      return rule.baseline?.status === 'expected' ? 'expected' : 'failure';
    case 'inconclusive':
      return 'error';
    case 'untestable':
      return policy.allowUntestable ? 'skipped' : 'error';
    case 'not-applicable':
      return 'skipped';
    case 'pass':
      return 'none';
  }
}

/**
 * The gate a CI reads: `fail` when a gating rule failed or a baseline entry is stale, `inconclusive`
 * when one could not be judged (transport, budget, deadline, a broken setup step), `untestable` when
 * one lacked a fixture or credential. SHOULD rules gate only in a strict run.
 */
export function gateOf(required: VerdictCounts, should: VerdictCounts = emptyCounts(), strict = false, stale = 0): Gate {
  const gating = strict ? (Object.fromEntries(VERDICTS.map((v) => [v, required[v] + should[v]])) as VerdictCounts) : required;
  if (gating.fail > 0 || stale > 0) return 'fail';
  if (gating.inconclusive > 0) return 'inconclusive';
  if (gating.untestable > 0) return 'untestable';
  return 'pass';
}

/** Rules that reached a verdict about the target: pass or fail. */
export function judgedCount(counts: readonly VerdictCounts[]): number {
  return counts.reduce((n, c) => n + c.pass + c.fail, 0);
}

/** Why an excluded rule has no verdict: the same words in every format. */
export function excludedNote(e: Pick<ExcludedReportRule, 'excludedBy'>): string {
  return `excluded by --exclude "${e.excludedBy}": not run, not counted, not a pass`;
}

/** Rules that gate and reached pass or fail: required ones, and SHOULD ones in a strict run. */
function judgedGating(summary: Pick<Report['summary'], 'required' | 'should' | 'strict'>): number {
  return judgedCount(summary.strict ? [summary.required, summary.should] : [summary.required]);
}

/** "judged 12 of 30 selected rules": the line every report and the CLI summary carry. */
export function judgedLine(summary: Pick<Report['summary'], 'judged' | 'selected' | 'required' | 'should' | 'strict'>): string {
  const line = `judged ${summary.judged} of ${summary.selected} selected rules (pass or fail)`;
  if (summary.judged === 0 || judgedGating(summary) > 0) return line;
  // Outside --strict a judged SHOULD rule gates no more than an observation does.
  return judgedCount([summary.should]) > 0
    ? `${line}, SHOULD and observation rules only: no rule that gates was judged (SHOULD rules gate only with --strict)`
    : `${line}, observations only: no rule that gates was judged`;
}

/** How a run's rules were chosen from its catalogue, in the words of the flags: the filters, the exclusions, the report a rerun took them from. */
export function selectionWords(selection: RunSelection | undefined, excluded: number): { filters: string[]; excluded: string; rerun?: string } {
  const filters: string[] = [];
  if (selection?.surfaces?.length) filters.push(`--surface ${selection.surfaces.join(',')}`);
  if (selection?.rules?.length) filters.push(`--rules ${selection.rules.join(',')}`);
  if (selection?.scenarios?.length) filters.push(`--scenario ${selection.scenarios.join(',')}`);
  const rerun = selection?.rerunOf ? `a rerun of ${selection.rerunOf.report}${selection.rerunOf.digest ? ` (digest ${selection.rerunOf.digest})` : ''}: only the rules that report did not pass` : undefined;
  return { filters, excluded: `${excluded} excluded by --exclude${selection?.exclude?.length ? ` (${selection.exclude.join(',')})` : ''}`, ...(rerun ? { rerun } : {}) };
}

/**
 * What narrowed the rules a report judged, when anything did: how many of the catalogue's rules were
 * selected, and how. Undefined for a run of the whole catalogue, or a report that did not record its
 * selection. Without it a readiness report over 38 rules of 190 reads like a whole certification.
 */
export function selectionLine(report: Pick<Report, 'run' | 'summary' | 'excluded'>): string | undefined {
  const selection = report.run.selection;
  if (!selection) return undefined;
  const excluded = report.excluded?.length ?? 0;
  const words = selectionWords(selection, excluded);
  const filters = [...words.filters, ...(excluded > 0 ? [words.excluded] : []), ...(words.rerun ? [words.rerun] : [])];
  if (filters.length === 0 && report.summary.selected >= selection.catalogue) return undefined;
  return `${report.summary.selected} of the ${selection.catalogue} rules of the catalogue selected${filters.length > 0 ? ` (${filters.join('; ')})` : ''}`;
}

/**
 * The gate as the console and every rendered format say it, so they agree with the exit code:
 * --allow-untestable turns an untestable gate into an exit 0 where a required rule passed
 * (`policyOf`), and that is said with the flag. `summary.gate` keeps the verdict itself.
 */
export function gateWords(report: Pick<Report, 'run' | 'summary'>): { words: string; green: boolean } {
  if (report.summary.gate === 'untestable' && policyOf(report).allowUntestable) return { words: 'PASS (untestable rules allowed by --allow-untestable)', green: true };
  return { words: report.summary.gate.toUpperCase(), green: report.summary.gate === 'pass' };
}

/**
 * The report as a run under `--allow-untestable` writes it: every command that takes the flag records
 * it, so each format says the gate the exit code gives (`gateWords`). The digest is recomputed only
 * when the policy changes what the report says.
 */
export function underPolicy(report: Report, allowUntestable: boolean): Report {
  if (report.run.allowUntestable === allowUntestable) return report;
  const { digest: _old, ...body } = report;
  const changed = { ...body, run: { ...body.run, allowUntestable } };
  return { ...changed, digest: digestOf(changed) };
}

/** What a gate over a part of the traffic must say with it: how many exchanges the record dropped unjudged, and why; undefined when none was. */
export function droppedLine(run: Pick<Report['run'], 'dropped' | 'requests'>): string | undefined {
  if (!run.dropped) return undefined;
  return `judged over a subset: the ${run.requests} exchanges the record held; ${run.dropped.exchanges} more passed but were dropped from the record unjudged (${run.dropped.limits})`;
}

export function sha256(text: string | Buffer): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** Identifies the rule catalog: ids, levels and sentences, not the check code. */
export function rulesetHash(rules: readonly Rule[]): string {
  return sha256(canonicalJson(rules.map(({ check: _check, ...meta }) => meta)));
}

/** Identifies the profile a run used; tokens, header values and a proxy's credentials are left out entirely, not hashed. */
export function profileFingerprint(profile: Profile): string {
  const network = profile.network ? { network: fingerprintableNetwork(profile.network) } : {};
  return sha256(canonicalJson({ ...profile, ...network, credentials: profile.credentials.map(({ token: _token, ...rest }) => rest) }));
}

/** A shell word: as is when it needs no quoting, else single-quoted. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export function rerunCommand(invocation: string, ruleId: string, seed: number): string {
  return `${invocation} --rules ${shellWord(ruleId)} --seed ${seed}`;
}

/**
 * Counts and gate from the report's rules, baseline matches included: one reading for every producer
 * of a report (certify, a recording, the proxy, a client or a receiver). A run that let no rule judge
 * anything (every rule not-applicable, or none selected) is inconclusive, never a pass.
 */
export function summarize(rules: readonly ReportRule[], strict: boolean): Report['summary'] {
  const counts = { required: emptyCounts(), should: emptyCounts(), observation: emptyCounts() };
  // What gates: required rules, SHOULD rules in a strict run, less the failures a baseline expects.
  const gating = emptyCounts();
  for (const r of rules) {
    counts[r.level][r.verdict] += 1;
    if (gates(r, strict) && r.baseline?.status !== 'expected') gating[r.verdict] += 1;
  }
  const listed = (status: BaselineMatch['status']) => rules.filter((r) => gates(r, strict) && r.baseline?.status === status).map((r) => r.id);
  const staleBaseline = listed('stale');
  const judged = judgedCount(Object.values(counts));
  const gate = gateOf(gating, emptyCounts(), false, staleBaseline.length);
  // Observations gate nothing, nor do SHOULD rules outside --strict, so their verdicts alone certify nothing: never a pass that judged nothing.
  return {
    ...counts,
    gate: gate === 'pass' && judgedGating({ ...counts, strict }) === 0 ? 'inconclusive' : gate,
    strict,
    selected: rules.length,
    judged,
    warnings: rules.filter((r) => r.level === 'should' && r.verdict === 'fail').map((r) => r.id),
    expectedFailures: listed('expected'),
    staleBaseline,
  };
}

export function buildReport(input: {
  results: RuleResult[];
  version: string;
  target: Report['target'];
  /** The target profile, for its fingerprint (runs that judge a client or a receiver have none). */
  profile?: Profile;
  /** The rule catalog the run selected from; defaults to the rules judged. */
  catalog?: readonly Rule[];
  startedAt: Date;
  finishedAt: Date;
  seed: number;
  requests: number;
  /** The command that started this run, without --rules and --seed; each rerun line extends it. */
  invocation?: string;
  allowUntestable?: boolean;
  stopped?: string;
  warnings?: readonly string[];
  strict?: boolean;
  baseline?: { file: string; entries: readonly BaselineEntry[] };
  /** Rules `--exclude` set aside, with the pattern that matched each. */
  excluded?: ReadonlyArray<{ rule: Rule; pattern: string }>;
  /** `sampled`: a passing rule keeps a sample of its exchanges (trim.ts); default: all of them. */
  passingEvidence?: 'sampled' | 'full';
  /** A passive run: the exchanges each rule judged, by rule id. */
  passive?: { judged: ReadonlyMap<string, number> };
  /** The proxy: exchanges dropped from the record before judging, and the limits that dropped them. */
  dropped?: { exchanges: number; limits: string };
  /** The filters the run was given (`--surface`, `--rules`, `--exclude`, `--rerun`); the catalogue size comes from `catalog`. */
  selection?: Omit<RunSelection, 'catalogue'>;
}): Report {
  const listed = new Map((input.baseline?.entries ?? []).map((e) => [e.rule, e]));
  const rules: ReportRule[] = input.results.map((r) => {
    const rule: ReportRule = {
      id: r.rule.id,
      title: r.rule.title,
      surface: r.rule.surface,
      level: r.rule.level,
      destructive: r.rule.destructive,
      spec: r.rule.spec,
      verdict: r.verdict,
      durationMs: r.durationMs,
      ...(r.verdict === 'pass' && input.passingEvidence === 'sampled'
        ? (({ evidence, omitted }) => ({ evidence, evidenceOmitted: r.evidenceOmitted + omitted }))(passingSample(r.evidence))
        : { evidence: r.evidence, evidenceOmitted: r.evidenceOmitted }),
      cases: input.invocation ? r.cases.map((c) => ({ ...c, reason: withRunCommand(c.reason, (id, seed) => rerunCommand(input.invocation!, id, seed)) })) : r.cases,
      casesOmitted: r.casesOmitted,
    };
    if (r.reason !== undefined) rule.reason = input.invocation ? withRunCommand(r.reason, (id, seed) => rerunCommand(input.invocation!, id, seed)) : r.reason;
    if (r.counterexample) rule.counterexample = r.counterexample;
    if (input.passive) rule.exchanges = input.passive.judged.get(r.rule.id) ?? 0;
    else if (r.requests !== undefined) rule.requests = r.requests;
    if (r.verdict !== 'pass' && input.invocation) rule.rerun = rerunCommand(input.invocation, r.rule.id, input.seed);
    const entry = listed.get(r.rule.id);
    // Only a judged outcome says anything about a baseline entry: untestable or inconclusive leaves it be.
    if (entry && (r.verdict === 'fail' || r.verdict === 'pass')) {
      rule.baseline = { reason: entry.reason, status: r.verdict === 'fail' ? 'expected' : 'stale' };
      if (entry.expires) rule.baseline.expires = entry.expires;
    }
    return rule;
  });
  const run: Report['run'] = {
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
    seed: input.seed,
    surfaces: [...new Set(input.results.map((r) => r.rule.surface))],
    requests: input.requests,
    allowUntestable: input.allowUntestable ?? false,
  };
  if (input.stopped) run.stopped = input.stopped;
  if (input.passive) run.mode = 'passive';
  if (input.dropped) run.dropped = { ...input.dropped };
  if (!input.passive) {
    const families = new Map<string, number>();
    for (const r of rules) if (r.requests) families.set(r.id.split('.').slice(0, 2).join('.'), (families.get(r.id.split('.').slice(0, 2).join('.')) ?? 0) + r.requests);
    if (families.size > 0) run.requestsByFamily = Object.fromEntries([...families].sort((a, b) => b[1] - a[1]));
  }
  if (input.warnings?.length) run.warnings = [...input.warnings];
  if (input.baseline) run.baseline = { file: input.baseline.file, entries: input.baseline.entries.length };
  if (input.selection) run.selection = selectionOf(input.selection, (input.catalog ?? input.results.map((r) => r.rule)).length);
  const target: Report['target'] = { ...input.target };
  if (input.profile) target.profileFingerprint = profileFingerprint(input.profile);
  const body: Omit<Report, 'digest'> = {
    reportVersion: REPORT_VERSION,
    harness: { name: 'apicert', version: input.version, node: process.version, rulesetHash: rulesetHash(input.catalog ?? input.results.map((r) => r.rule)) },
    target,
    run,
    summary: summarize(rules, input.strict ?? false),
    rules,
    ...(input.excluded?.length ? { excluded: input.excluded.map(({ rule, pattern }) => ({ id: rule.id, title: rule.title, surface: rule.surface, level: rule.level, excludedBy: pattern })) } : {}),
    observations: input.results.flatMap((r) => r.observations),
  };
  return { ...body, digest: digestOf(body) };
}

/** Only the filters given: an absent one selected everything, and says so by its absence. */
function selectionOf(given: Omit<RunSelection, 'catalogue'>, catalogue: number): RunSelection {
  const selection: RunSelection = { catalogue };
  if (given.surfaces?.length) selection.surfaces = [...given.surfaces];
  if (given.rules?.length) selection.rules = [...given.rules];
  if (given.exclude?.length) selection.exclude = [...given.exclude];
  if (given.scenarios?.length) selection.scenarios = [...given.scenarios];
  if (given.rerunOf) selection.rerunOf = { ...given.rerunOf };
  return selection;
}

/** Over the canonical JSON, so the digest survives re-serialisation (key order, spacing). */
export function digestOf(body: Omit<Report, 'digest'>): string {
  // Rules show the same exchanges (one evidence object each): each is written and encoded once, and hashed where it stands.
  const entries = new Set<object>();
  for (const rule of body.rules) for (const entry of rule.evidence) entries.add(entry);
  const hash = createHash('sha256');
  // Keyed by the entry, not its text: a text key is hashed whole on its first lookup (megabytes of evidence, ~10 ms of a 1.1 s judging).
  const bytes = new Map<object, Buffer>();
  canonicalPieces(body, entries, (text, reused, of) => {
    if (!reused || of === undefined) {
      hash.update(text);
      return;
    }
    let encoded = bytes.get(of);
    if (!encoded) {
      encoded = Buffer.from(text, 'utf8');
      bytes.set(of, encoded);
    }
    hash.update(encoded);
  });
  return `sha256:${hash.digest('hex')}`;
}
