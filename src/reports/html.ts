import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { VERDICTS } from '../rule/index.ts';
import type { EvidenceEntry } from '../rule/index.ts';
import { curlOf, decidingExchange, exchangeText, leadingExchanges, replayNotes } from './evidence-text.ts';
import { droppedLine, effectOf, excludedNote, gates, gateWords, judgedLine, policyOf, selectionLine, type Report, type ReportRule } from './model.ts';
import { compactIds, runWideCause, wasNotRun } from './run-cause.ts';

const TEMPLATE_URL = new URL('../../reports/templates/report.html', import.meta.url);

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** `<surface>.<area>` of a rule id: the grouping the developers' guide names. */
export function areaOf(id: string): string {
  return id.split('.').slice(0, 2).join('.');
}

function clipLine(text: string, limit: number): string {
  const line = text.split('\n')[0]!;
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}

function verdictTag(r: ReportRule): string {
  const expected = r.baseline?.status === 'expected' ? ' <span class="expected">expected (baseline)</span>' : '';
  const stale = r.baseline?.status === 'stale' ? ' <span class="expected">stale baseline entry</span>' : '';
  return `<span class="verdict v-${r.verdict}">${esc(r.verdict)}</span>${expected}${stale}`;
}

function exchangeBlock(e: EvidenceEntry, what: string): string {
  const curl = curlOf(e);
  return [
    `<div class="meta">${esc(what)}${e.label ? `: ${esc(e.label)}` : ''}</div>`,
    `<pre>${esc(exchangeText(e))}</pre>`,
    curl ? `<div class="meta">Repeat it:</div><pre>${esc(curl)}</pre>` : '',
  ].join('');
}

/**
 * A reason of several paragraphs (a model rule's violation, its shrunk counterexample, the steps
 * with their curl lines) becomes one block each: prose as a paragraph, indented lines preformatted.
 */
function reasonBlocks(reason: string): string {
  const [first = '', ...rest] = reason.split(/\n{2,}/);
  const blocks = rest.map((p) => (p.includes('\n') ? `<pre>${esc(p)}</pre>` : `<p class="meta">${esc(p)}</p>`));
  return blocks.length ? `<span class="violation">${esc(first)}</span>${blocks.join('')}` : esc(first);
}

function casesBlock(r: ReportRule): string {
  const cases = r.cases.map((c, i) => {
    const e = decidingExchange(r, c.exchange);
    const counter = c.counterexample
      ? `<div class="meta">Counterexample (seed ${c.counterexample.seed}, path ${esc(c.counterexample.path ?? '-')}, ${c.counterexample.numRuns} runs):</div><pre>${esc(JSON.stringify(c.counterexample.value, null, 2) ?? 'undefined')}</pre>`
      : '';
    const before = leadingExchanges(r, c.exchange).map((b, n) => exchangeBlock(b, `Request ${n + 1}, sent before it with the same Idempotency-Key`));
    const decided = e ? exchangeBlock(e, e.direction === 'received' ? 'Received from the target' : before.length ? `Request ${before.length + 1}, the one that decided it` : 'The exchange that decided it') : '<div class="meta">No single exchange decided this case.</div>';
    const exchange = `${before.join('')}${decided}`;
    return `<div class="case"><b>Case ${i + 1}.</b> ${reasonBlocks(c.reason)}${counter}${exchange}</div>`;
  });
  if (r.casesOmitted > 0) cases.push(`<p class="meta">… and ${r.casesOmitted} more failing cases (a rule reports at most ${r.cases.length}).</p>`);
  return cases.join('');
}

function blockingBlock(r: ReportRule, report: Report): string {
  const effect = effectOf(r, policyOf(report));
  const stale = r.baseline?.status === 'stale' ? `<p>The baseline lists this rule as a known failure ("${esc(r.baseline.reason)}") but it passes now: remove the entry.</p>` : '';
  const body = r.verdict === 'fail' ? casesBlock(r) : r.reason ? `<p>${esc(r.reason)}</p>` : '';
  const last = r.verdict !== 'fail' && r.evidence.length > 0 && !stale ? exchangeBlock(r.evidence.at(-1)!, 'The last exchange sent') : '';
  return `<article class="failure${effect === 'error' ? ' blocking-error' : ''}" id="fail-${esc(r.id)}">
<h3><code>${esc(r.id)}</code> ${verdictTag(r)}</h3>
<div>${esc(r.title)} <span class="meta">· ${esc(r.level)} · ${esc(r.spec.document)}, ${esc(r.spec.section)}</span></div>
<blockquote>${esc(r.spec.quote)}</blockquote>
${stale}${body}${last}
${r.rerun ? `<div class="meta">Rerun this rule alone:</div><pre>${esc(r.rerun)}</pre>` : ''}
</article>`;
}

function ruleItem(r: ReportRule, blocking: boolean): string {
  const detail = [
    `<blockquote>${esc(r.spec.quote)}</blockquote>`,
    r.exchanges !== undefined && r.exchanges > 0 ? `<p class="meta">${r.exchanges} recorded exchange(s) judged.</p>` : '',
    wasNotRun(r) ? '<p><a href="#cause">Not run: see why the run stopped.</a></p>' : r.reason ? `<p>${esc(r.reason)}</p>` : '',
    // Blocking failures are shown in full at the top; here a link, not a second copy.
    r.verdict === 'fail' ? (blocking ? `<p><a href="#fail-${esc(r.id)}">Every failing case with its exchange</a></p>` : casesBlock(r)) : '',
    // A passing rule's exchanges stay in report.json: here they would only bury the rest.
    r.evidence.length > 0 && r.verdict === 'pass' ? `<p class="meta">${r.evidence.length + r.evidenceOmitted} exchange(s), in report.json.</p>` : '',
    r.evidence.length > 0 && r.verdict !== 'fail' && r.verdict !== 'pass' ? `<details><summary>${r.evidence.length} exchange(s)${r.evidenceOmitted ? `, ${r.evidenceOmitted} omitted` : ''}</summary>${r.evidence.map((e) => exchangeBlock(e, e.direction === 'received' ? 'Received' : 'Sent')).join('')}</details>` : '',
    r.rerun ? `<pre>${esc(r.rerun)}</pre>` : '',
  ].join('');
  return `<details class="rule" id="rule-${esc(r.id)}" data-verdict="${r.verdict}"><summary><code>${esc(r.id)}</code> ${verdictTag(r)} <span class="meta">${r.level === 'should' ? 'SHOULD' : esc(r.level)}</span> ${esc(r.title)}</summary>${detail}</details>`;
}

function countRow(label: string, rules: readonly ReportRule[], strong: boolean): string {
  const n = (v: string) => rules.filter((r) => r.verdict === v).length;
  const cells = ['pass', 'fail', 'untestable', 'inconclusive', 'not-applicable'].map((v) => `<td class="n${n(v) > 0 && v !== 'pass' ? ` v-${v}` : ''}">${n(v)}</td>`).join('');
  return `<tr><td>${strong ? `<b>${esc(label)}</b>` : `&nbsp;&nbsp;${esc(label)}`}</td>${cells}</tr>`;
}

/** One self-contained page: the gate and the run's facts, then what blocks the gate, then the rest. */
export function renderHtml(report: Report): string {
  const req = report.summary.required;
  const policy = policyOf(report);
  // A rule the run-wide cause never let start is named under that cause, once, not as a blocker of its own.
  const blockers = report.rules.filter((r) => ['failure', 'error'].includes(effectOf(r, policy)) && !wasNotRun(r));
  const cause = runWideCause(report);
  const causeBlock = cause
    ? `<section id="cause" class="failure blocking-error"><h2>The run stopped</h2><p>${esc(cause.cause)}</p>${cause.affected.length ? `<p>${cause.affected.length} rules were not run because of it (inconclusive):</p><ul>${compactIds(cause.affected).map((l) => `<li><code>${esc(l)}</code></li>`).join('')}</ul>` : ''}</section>`
    : '';
  const expected = report.rules.filter((r) => effectOf(r, policy) === 'expected');
  const warnings = report.rules.filter((r) => effectOf(r, policy) === 'warning');
  const surfaces = [...new Set(report.rules.map((r) => r.surface))];
  const areas = [...new Set(report.rules.map((r) => areaOf(r.id)))];
  const fact = (name: string, value: string) => `<li><b>${esc(name)}</b> <code>${esc(value)}</code></li>`;
  const selection = selectionLine(report);
  const facts = [
    fact('target', `${report.target.baseUrl} (${report.target.kind})`),
    report.target.profileFingerprint ? fact('profile', report.target.profileFingerprint.slice(0, 23)) : '',
    fact('seed', String(report.run.seed)),
    fact('started', report.run.startedAt),
    fact('duration', `${(report.run.durationMs / 1000).toFixed(1)} s`),
    report.run.mode === 'passive' ? fact('mode', `passive: ${report.run.requests} recorded exchanges judged, nothing sent`) : fact('requests', String(report.run.requests)),
    report.run.dropped ? fact('dropped', `${report.run.dropped.exchanges} exchanges, unjudged (${report.run.dropped.limits})`) : '',
    fact('apicert', `${report.harness.version} (Node ${report.harness.node})`),
    fact('rule set', report.harness.rulesetHash.slice(0, 23)),
    fact('digest', report.digest.slice(0, 23)),
    report.excluded?.length ? fact('excluded', `${report.excluded.length} rules (--exclude)`) : '',
    selection ? fact('selection', selection) : '',
    report.run.baseline ? fact('baseline', `${report.run.baseline.file} (${report.run.baseline.entries} entries)`) : '',
    report.target.faults?.length ? fact('faults switched on', report.target.faults.join(', ')) : '',
    report.target.variants?.length ? fact('fake variants', report.target.variants.join(', ')) : '',
    ...(report.run.warnings ?? []).map((w) => fact('warning', w)),
  ].join('');
  const perSurface = surfaces
    .map((s) => {
      const rules = report.rules.filter((r) => r.surface === s && gates(r, report.summary.strict));
      const n = (v: string) => rules.filter((r) => r.verdict === v).length;
      // Each count stays on one line; a narrow page breaks between counts, never inside one.
      const count = (v: string, label: string) => `<span class="count${v === 'fail' && n(v) ? ' v-fail' : ''}">${n(v)} ${label}</span>`;
      // Labelled: these count the rules that gate, the table below counts every rule.
      return `<li><b>${esc(s)}</b> <span class="meta">${report.summary.strict ? 'required and SHOULD rules' : 'required rules'}:</span> ${[count('pass', 'pass'), count('fail', 'fail'), count('untestable', 'untestable'), count('inconclusive', 'inconclusive'), count('not-applicable', 'n/a')].join(' · ')}</li>`;
    })
    .join('');
  // The list first, so every blocker shows on the first screen; the details with their exchanges follow.
  const toc = blockers.length
    ? `<ol class="toc">${blockers.map((r) => `<li><a href="#fail-${esc(r.id)}"><code>${esc(r.id)}</code></a> ${verdictTag(r)} <span class="meta">${esc(clipLine(r.baseline?.status === 'stale' ? 'stale baseline entry: the rule passes now' : (r.reason ?? ''), 200))}</span></li>`).join('')}</ol>`
    : '';
  const failures = [
    blockers.length === 0 ? (cause ? '<p>Nothing else blocks the gate.</p>' : '<p>Nothing blocks the gate.</p>') : toc,
    ...(blockers.length ? replayNotes(report).map((n) => `<p class="meta">${esc(n)}</p>`) : []),
    ...blockers.map((r) => blockingBlock(r, report)),
    warnings.length > 0 ? `<h3>Warnings: SHOULD rules that failed (they gate only with --strict)</h3><ul>${warnings.map((r) => `<li><a href="#rule-${esc(r.id)}"><code>${esc(r.id)}</code></a>: ${esc(clipLine(r.reason ?? '', 200))}</li>`).join('')}</ul>` : '',
    report.excluded?.length ? `<h3>Excluded rules (--exclude: not run, not counted)</h3><ul>${report.excluded.map((e) => `<li><code>${esc(e.id)}</code> <span class="meta">${esc(e.level)}: ${esc(excludedNote(e))}</span></li>`).join('')}</ul>` : '',
    expected.length > 0 ? `<h3>Expected failures (listed in the baseline, not gating)</h3><ul>${expected.map((r) => `<li><code>${esc(r.id)}</code>: ${esc(r.baseline?.reason ?? '')}${r.baseline?.expires ? ` <span class="meta">until ${esc(r.baseline.expires)}</span>` : ''}</li>`).join('')}</ul>` : '',
  ].join('\n');
  const groups = surfaces.map((surface) => {
    const inSurface = areas.filter((a) => a.startsWith(`${surface}.`));
    const inner = inSurface.map((area) => {
      const rules = report.rules.filter((r) => areaOf(r.id) === area);
      const bad = rules.filter((r) => r.verdict !== 'pass').length;
      return `<details class="group"${bad > 0 ? ' open' : ''}><summary><code>${esc(area)}</code> · ${rules.length} rules${bad ? `, ${bad} not passing` : ''}</summary><div>${rules.map((r) => ruleItem(r, blockers.includes(r))).join('')}</div></details>`;
    });
    return `<h3>${esc(surface)}</h3>${inner.join('')}`;
  });
  const counts = surfaces.flatMap((surface) => [
    countRow(surface, report.rules.filter((r) => r.surface === surface), true),
    ...areas.filter((a) => a.startsWith(`${surface}.`)).map((a) => countRow(a, report.rules.filter((r) => areaOf(r.id) === a), false)),
  ]);
  const observations = report.observations.length
    ? `<ul class="obs">${report.observations.map((o) => `<li><code>${esc(o.ruleId)}</code> · ${esc(o.subject)}: <code>${esc(JSON.stringify(o.value) ?? 'undefined')}</code>${o.note ? ` <span class="meta">${esc(o.note)}</span>` : ''}</li>`).join('')}</ul>`
    : '<p>None.</p>';
  const values: Record<string, string> = {
    target: esc(report.target.baseUrl),
    // The badge's colour follows what the exit code did: a gate --allow-untestable let through is green.
    gate: gateWords(report).green ? 'pass' : report.summary.gate,
    gateLabel: esc(gateWords(report).words),
    headline: esc(
      `${report.run.dropped ? `${droppedLine(report.run)}; ` : ''}${judgedLine(report.summary)}; required: ${req.pass} pass, ${req.fail} fail${expected.length ? ` (${expected.length} expected)` : ''}, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} not applicable; SHOULD: ${report.summary.should.pass} pass, ${report.summary.should.fail} fail${report.summary.strict ? ' (strict: gating)' : ' (warnings)'}`,
    ),
    facts,
    perSurface,
    cause: causeBlock,
    failuresTitle: blockers.length ? `What blocks the gate (${blockers.length})` : 'What blocks the gate',
    failures,
    counts: counts.join('\n'),
    filters: VERDICTS.map((v) => `<label><input type="checkbox" value="${v}" checked> ${v} (${report.rules.filter((r) => r.verdict === v).length})</label>`).join(''),
    groups: groups.join('\n'),
    observations,
  };
  return ownScriptsOnly(readFileSync(TEMPLATE_URL, 'utf8')).replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? '');
}

/**
 * The policy names the hash of each script the template holds in place of 'unsafe-inline': were a
 * target's text ever to get past the escaping as markup, the page would run none of it.
 */
function ownScriptsOnly(template: string): string {
  const hashes = [...template.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
  return template.replace("script-src 'unsafe-inline'", `script-src ${hashes.join(' ') || "'none'"}`);
}
