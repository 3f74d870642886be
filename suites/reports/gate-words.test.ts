/**
 * Every format says the gate as the exit code has it, observations alone certify nothing, and
 * what a target sent reaches summary.md as text wherever it stands (an audit's findings, /tmp/audit-51).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { digestOf, gateWords, judgedLine, summarize, underPolicy, type Report, type ReportRule } from '../../src/reports/model.ts';
import { exitCodeFor, EXIT } from '../../src/cli/exit.ts';
import { certifyFake, type Run } from './support.ts';

let run: Run;
beforeAll(async () => {
  run = await certifyFake([], ['v8.missions.get.ok', 'v8.missions.create.accepted', 'v8.certificates.health']);
}, 120_000);

describe('the gate', () => {
  it('reads the same in every format as the exit code under --allow-untestable', () => {
    const report = run.variant({ verdicts: { 'v8.missions.get.ok': 'untestable' }, allowUntestable: true });
    expect(report.summary.gate).toBe('untestable');
    expect(exitCodeFor(report.summary, true)).toBe(EXIT.pass);
    const words = gateWords(report).words;
    expect(words).toBe('PASS (untestable rules allowed by --allow-untestable)');
    expect(renderMarkdown(report)).toContain(`- Gate: **${words}**`);
    expect(renderHtml(report)).toMatch(/<span class="gate gate-pass" id="gate">PASS \(untestable rules allowed by --allow-untestable\)<\/span>/);
    expect(renderJunit(report)).toContain(`gate ${words}; digest`);
    // Without the flag every format says untestable, as the exit code does.
    const strictly = run.variant({ verdicts: { 'v8.missions.get.ok': 'untestable' } });
    expect(gateWords(strictly).words).toBe('UNTESTABLE');
    expect(renderMarkdown(strictly)).toContain('- Gate: **UNTESTABLE**');
  });

  it('is recorded by every command that takes --allow-untestable, with the digest over what the report then says', () => {
    const judged = run.variant({ verdicts: { 'v8.missions.get.ok': 'untestable' } });
    const allowed = underPolicy(judged, true);
    expect(allowed.run.allowUntestable).toBe(true);
    expect(gateWords(allowed).words).toBe('PASS (untestable rules allowed by --allow-untestable)');
    const { digest, ...body } = allowed;
    expect(digest).toBe(digestOf(body));
    expect(digest).not.toBe(judged.digest);
    // Unchanged policy, unchanged report.
    expect(underPolicy(judged, false)).toBe(judged);
  });

  it('is inconclusive when only observations were judged: they gate nothing', () => {
    const observation = run.report.rules.find((r) => r.level === 'observation' && r.verdict === 'pass');
    expect(observation, 'the run judged an observation').toBeDefined();
    const alone: ReportRule[] = [observation!];
    const summary = summarize(alone, false);
    expect(summary.judged).toBe(1);
    expect(summary.gate).toBe('inconclusive');
    expect(judgedLine(summary)).toBe('judged 1 of 1 selected rules (pass or fail), observations only: no rule that gates was judged');
    // A required pass beside it gates as before.
    const withRequired = summarize([...alone, run.report.rules.find((r) => r.level === 'required' && r.verdict === 'pass')!], false);
    expect(withRequired.gate).toBe('pass');
    expect(judgedLine(withRequired)).toBe('judged 2 of 2 selected rules (pass or fail)');
  });
});

describe('summary.md', () => {
  it('shows an observation subject and note carrying Markdown and HTML literally', () => {
    const hostile = '<img src=https://evil.example/x.png> ![i](https://evil.example/i.png) [click](https://evil.example/) a\u0000b';
    const report: Report = { ...run.report, observations: [{ ruleId: 'mcp.revisions.later', subject: `ping with MCP-Protocol-Version: ${hostile}`, value: 1, note: hostile }] };
    const md = renderMarkdown(report);
    const row = md.split('\n').find((l) => l.startsWith('| `mcp.revisions.later`'))!;
    expect(row).toContain('&lt;img src=https://evil.example/x.png&gt;');
    expect(row).not.toMatch(/<img|(?<!\\)!\[i\]|(?<!\\)\[click\]|\u0000/);
  });

  it('writes the angle brackets of its own titles and quotes as entities outside code spans', () => {
    const rule = run.report.rules[0]!;
    const report: Report = { ...run.report, rules: [{ ...rule, title: 'HMAC over <event_id>.<timestamp> & `<raw body>`', verdict: 'fail', spec: { ...rule.spec, quote: 'sign <raw request body> with `<secret>`' } }] };
    const md = renderMarkdown(report);
    expect(md).toContain('HMAC over &lt;event_id&gt;.&lt;timestamp&gt; &amp; `<raw body>`');
    expect(md).toContain('> sign &lt;raw request body&gt; with `<secret>`');
  });
});
