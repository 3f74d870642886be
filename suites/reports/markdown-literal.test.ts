/** What a target sends reaches summary.md (and a CI's step summary) as text, never as Markdown or HTML of its making. */
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { renderDiffMarkdown, diffReports } from '../../src/reports/diff.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { defineRule } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';

/** A problem code a hostile target could send, as a reason carries it: a heading, an image, a link, HTML, a row break and a fence. */
const HOSTILE = '\n## Gate: PASS\r![badge](https://evil.example/b.png) <img src=https://evil.example/p.gif> [docs](https://evil.example) a|b ```';

describe('summary.md', () => {
  it('shows a reason carrying Markdown and HTML literally, in the list of failures and in the table', async () => {
    const fake = await startFake();
    try {
      const rule = defineRule({
        id: 'v8.reports.hostile-reason',
        surface: 'v8',
        title: 'a reason carrying target text',
        level: 'required',
        destructive: 'read',
        spec: { document: 'v8-integration-gateway.md', section: 'test', quote: 'test' },
        check: async (ctx) => {
          const res = await ctx.http.send({ method: 'GET', path: '/v8/missions/00000000-0000-7000-8000-000000000000', credential: null });
          ctx.check(false, `answered ${res.status} with code ${HOSTILE}`);
        },
      });
      const { report } = await certify({ profile: embeddedProfile(fake), rules: [rule], seed: 1 });
      const md = renderMarkdown(report);
      const lines = md.split('\n');
      expect(lines.filter((l) => l.startsWith('#')).every((l) => /^#+ (apicert readiness report|What blocks the gate|Required rules|`v8\.reports\.hostile-reason`)/.test(l)), lines.filter((l) => l.startsWith('#')).join('\n')).toBe(true);
      expect(md).not.toMatch(/<img|!\[badge\]|[^\\]\[docs\]|\r/);
      const row = lines.find((l) => l.startsWith('| `v8.reports.hostile-reason`'))!;
      // One row of four cells: the target's `|` is escaped.
      expect(row.split(/(?<!\\)\|/).length).toBe(6);
      expect(lines.find((l) => l.startsWith('1. '))).toContain('\\#\\# Gate: PASS');
      // The diff's table row likewise; its longer account follows in a fenced block, where nothing is markup.
      const diff = renderDiffMarkdown(diffReports({ ...report, rules: report.rules.map((r) => ({ ...r, verdict: 'pass' as const })) }, report));
      const diffRow = diff.split('\n').find((l) => l.startsWith('| `v8.reports.hostile-reason`'))!;
      expect(diffRow).not.toMatch(/<img|!\[badge\]|\r/);
      expect(diffRow.split(/(?<!\\)\|/).length).toBe(6);
    } finally {
      await fake.close();
    }
  });
});
