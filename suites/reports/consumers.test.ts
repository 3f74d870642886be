/**
 * The reports as their consumers read them (an audit, /tmp/h138/findings.md): a JUnit file an XML
 * parser accepts whatever the gate says, a step summary GitHub still shows after a run with many
 * failures, a verify that says when a report and a signature come from two runs, spec quotes that
 * stay quotes in Markdown, and a report.html that runs only its own script.
 */
import { createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appendStepSummary, fitStepSummary, STEP_SUMMARY_LIMIT } from '../../src/cli/step-summary.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { generateKeys, privateKeyFrom, signReport, verifyReport } from '../../src/reports/signature.ts';
import { validate } from './junit-schema.ts';
import { certifyFake } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'apicert-consumers-'));
// As suites/reports/html-browser.test.ts launches it (importing that file would run its tests here too).
const CHROMIUM = process.env.APICERT_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

describe('junit.xml when only SHOULD and observation rules were judged', async () => {
  const run = await certifyFake(['mcp.session.missing-400/served-without-session'], ['mcp.session.missing-400']);

  it('is well-formed XML: the judged line\'s "--strict" is no "--" inside a comment', async () => {
    const xml = renderJunit(run.report);
    expect(run.report.summary.gate).toBe('inconclusive');
    for (const c of xml.matchAll(/<!--([\s\S]*?)-->/g)) expect(c[1]).not.toContain('--');
    expect(await validate(xml)).toEqual([]);
  });
});

/** Opening and closing fence lines, by the CommonMark rule the summary's fences follow. */
function fencesBalanced(text: string): boolean {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,})/.exec(line)?.[1];
    if (marker && open === undefined) open = marker;
    else if (marker && open !== undefined && marker.length >= open.length && line.trim() === marker) open = undefined;
  }
  return open === undefined;
}

describe('the GitHub step summary stays within what GitHub shows', async () => {
  const run = await certifyFake(['v8.missions.get.unknown-404/server-error'], ['v8.missions.get.*']);
  const markdown = renderMarkdown(run.report);

  it('cuts at a line end past the budget, closes an open fence and says where the rest is', () => {
    expect(fitStepSummary(markdown, markdown.length + 10)).toBe(markdown);
    const inFence = markdown.indexOf('```sh');
    expect(inFence).toBeGreaterThan(0);
    // A budget that ends inside the curl fence of the failing case.
    const budget = Buffer.byteLength(markdown.slice(0, inFence + 20)) + 400;
    const cut = fitStepSummary(markdown, budget)!;
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(budget);
    expect(cut.startsWith(markdown.split('\n').slice(0, 4).join('\n'))).toBe(true);
    expect(cut).toContain('- Gate: **FAIL**');
    expect(cut).toMatch(/GitHub shows at most 1024 KiB of a step's summary; \d+ more lines are in summary\.md/);
    expect(fencesBalanced(cut)).toBe(true);
    expect(fitStepSummary(markdown, 50)).toBeUndefined();
  });

  it('appends no more than the file has room for, counting what earlier commands of the step wrote', async () => {
    const file = join(dir, 'step-summary.md');
    const earlier = `${'x'.repeat(99)}\n`.repeat(Math.floor((STEP_SUMMARY_LIMIT - 2_000) / 100));
    writeFileSync(file, earlier);
    expect(Buffer.byteLength(markdown)).toBeGreaterThan(STEP_SUMMARY_LIMIT - Buffer.byteLength(earlier));
    expect(await appendStepSummary(run.report, undefined, { GITHUB_STEP_SUMMARY: file })).toBe(file);
    const written = readFileSync(file, 'utf8');
    expect(Buffer.byteLength(written)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(written.startsWith(earlier)).toBe(true);
    expect(written.slice(earlier.length)).toContain('- Gate: **FAIL**');
  });
});

describe('verify, given a report and a signature of two runs', async () => {
  const keys = generateKeys();
  const key = privateKeyFrom(keys.privatePem, 'test key');
  const pub = createPublicKey(keys.publicPem);
  const a = (await certifyFake([], ['v8.missions.get.ok'], 1)).report;
  const b = (await certifyFake([], ['v8.missions.get.ok'], 2)).report;
  const plain = (r: unknown) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>;

  it('says first that the signature is of another report, whichever of the two was swapped', () => {
    for (const [report, signed] of [[b, a], [a, b]] as const) {
      const result = verifyReport(plain(report), plain(signReport(signed, key)), pub);
      expect(result.ok).toBe(false);
      expect(result.problems[0]).toBe(
        `the signature is of another report: this report.json (digest ${report.digest}) is whole by its own digest, but the signature was made for a report with another digest, from another run or a report.json written anew; fetch the report.json and report.json.sig that were written together`,
      );
    }
  });

  it('says no such thing of a report edited after signing: its own digest no longer holds', () => {
    const edited = plain(a);
    (edited.summary as { gate: string }).gate = 'pass';
    (edited.run as { seed: number }).seed += 1;
    const result = verifyReport(edited, plain(signReport(a, key)), pub);
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).not.toContain('another report');
    expect(result.problems).toContain('run changed after signing');
  });
});

describe('summary.md quotes a spec sentence that opens with a heading as a quote', async () => {
  const run = await certifyFake([], ['v1.runs.approve.request-shape']);

  it('escapes the heading marker, so the summary gains no heading of the spec\'s', () => {
    const failed = run.variant({ verdicts: { 'v1.runs.approve.request-shape': 'fail' } });
    const quote = failed.rules[0]!.spec.quote;
    expect(quote).toMatch(/^### /);
    const md = renderMarkdown(failed);
    expect(md).not.toMatch(/^\s*> #{1,6} /m);
    expect(md).toContain(`> \\${quote.slice(0, 20)}`);
  });
});

describe('report.html runs only its own script', async () => {
  const run = await certifyFake(['v8.missions.get.unknown-404/server-error'], ['v8.missions.get.*']);
  const html = renderHtml(run.report);

  it('names the hash of its script in the policy, never unsafe-inline', () => {
    const policy = /Content-Security-Policy" content="([^"]*)"/.exec(html)![1]!;
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(policy).not.toContain("'unsafe-inline'; img");
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('in Chromium the filters still work and a script that got into the page does not run', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium or set APICERT_CHROMIUM`);
    const file = join(dir, 'report.html');
    // As if a target's text had got past the escaping.
    writeFileSync(file, html.replace('<main>', '<main><script>document.title = "injected"</script>'));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(file).toString());
      expect(await page.title()).not.toBe('injected');
      await page.uncheck('.filters input[value="pass"]');
      const hidden = await page.evaluate('document.querySelectorAll("#rules .rule.hidden").length');
      expect(hidden).toBe(run.report.rules.filter((r) => r.verdict === 'pass').length);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
