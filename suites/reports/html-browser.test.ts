import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/reports/html.ts';
import { effectOf, policyOf } from '../../src/reports/model.ts';
import { profileFromEnv } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';

/** Debian's chromium; .ci/run installs it. */
export const CHROMIUM = process.env.APICERT_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

// Page scripts as strings: the project's types have no DOM.
const OPEN_ALL = 'document.querySelectorAll("details").forEach((d) => { d.open = true; })';

describe('report.html in headless Chromium', async () => {
  // The embedded fake: its run has a webhook receiver, so a delivery can be a failing case.
  const run = await certify({
    faults: ['v8.missions.idempotency.conflict/replays-different-body', 'v1.errors.problem-shape/extra-member', 'v1.webhooks.delivery.timestamp/milliseconds'],
    patterns: ['v8.missions.*', 'v1.errors.*', 'v1.webhooks.delivery.timestamp', 'v8.goals.*'],
    seed: 42,
    invocation: 'npx apicert certify --faults x',
  });
  const dir = mkdtempSync(join(tmpdir(), 'apicert-html-'));
  const file = join(dir, 'report.html');
  writeFileSync(file, renderHtml(run.report));
  const url = pathToFileURL(file).toString();
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does) or set APICERT_CHROMIUM`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => browser?.close());

  async function open(width: number) {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    // Anything but the file itself is refused and remembered: the report must need nothing else.
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    await page.goto(url);
    return { page, requests };
  }

  it('loads nothing but itself', async () => {
    const { page, requests } = await open(1280);
    await page.click('#rules details.group summary');
    await page.evaluate(OPEN_ALL);
    expect(requests).toEqual([url]);
    await page.close();
  });

  it('shows what blocks the gate first, on the first screen', async () => {
    const { page } = await open(1280);
    const first = await page.evaluate('document.querySelector("main").firstElementChild.id');
    expect(first).toBe('failures');
    // Every blocker is named on the first screen, each linking to its cases.
    const listed = page.locator('#failures .toc li');
    const blockers = run.report.rules.filter((r) => ['failure', 'error'].includes(effectOf(r, policyOf(run.report)))).map((r) => r.id);
    expect(await listed.count()).toBe(blockers.length);
    for (const box of await Promise.all((await listed.all()).map((li) => li.boundingBox()))) expect(box!.y + box!.height).toBeLessThan(800);
    const box = await page.locator('#failures article').first().boundingBox();
    expect(box!.y).toBeLessThan(800);
    const blocking = await page.locator('#failures article h3 code').allTextContents();
    expect(blocking.sort()).toEqual([...blockers].sort());
    expect(blocking).toEqual(expect.arrayContaining(['v1.errors.problem-shape', 'v1.webhooks.delivery.timestamp', 'v8.missions.idempotency.conflict']));
    const failures = await page.locator('#failures').innerText();
    expect(failures).toMatch(/Case 2\. POST \/v1\/\S+: the \d{3} problem body/);
    expect(failures).toMatch(/HTTP 400/);
    expect(failures).toContain('npx apicert certify --faults x --rules v1.errors.problem-shape --seed 42');
    expect(failures).toMatch(/Received from the target[^\n]*\n# received by apicert from the target\nPOST [^\n]*\n(?:[^\n]+\n)*service-webhook-timestamp: \d{13}\n/);
    expect(failures).toContain('authorization: Bearer «redacted»');
    expect(failures).not.toMatch(/^authorization: Bearer (?!«redacted»)/im);
    await page.close();
  });

  it('has no horizontal overflow at 1280 px, even with every rule open', async () => {
    const { page } = await open(1280);
    await page.evaluate(OPEN_ALL);
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    expect(width).toBeLessThanOrEqual(1280);
    await page.close();
  });

  it('fits 420 px: the per-surface counts and everything else stay inside the viewport', async () => {
    const { page } = await open(420);
    await page.screenshot({ path: join(dir, 'narrow.png'), fullPage: false });
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    expect(width).toBeLessThanOrEqual(420);
    // Inside the page's margins, not only inside the window.
    const header = (await page.locator('header').boundingBox())!;
    const boxes = await Promise.all((await page.locator('.facts.surfaces li').all()).map((li) => li.boundingBox()));
    expect(boxes.length).toBeGreaterThan(0);
    for (const box of boxes) expect(box!.x + box!.width).toBeLessThanOrEqual(header.x + header.width + 0.5);
    // A count never breaks inside itself ("0" on one line, "n/a" on the next): one line each.
    const counts = await Promise.all((await page.locator('.facts.surfaces .count').all()).map((c) => c.boundingBox()));
    expect(counts.length).toBeGreaterThan(4);
    for (const box of counts) expect(box!.height).toBeLessThan(30);
    await page.close();
  });

  it("shows a model rule's violation, counterexample and curl lines as separate blocks", async () => {
    const report = structuredClone(run.report);
    const rule = report.rules.find((r) => r.verdict === 'fail' && r.cases.length > 0)!;
    rule.cases = [{ ...rule.cases[0]!, reason: "step 3: the run's events go on after request.cancelled\n\nShrunk counterexample after 2 sequence(s): 3 step(s), seed 42.\n\n1. start run A\n   request 1: POST /v1/execute -> 200\n     curl -sS -i -X POST 'http://127.0.0.1:1/v1/execute'" }];
    const modelFile = join(dir, 'model.html');
    writeFileSync(modelFile, renderHtml(report));
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(pathToFileURL(modelFile).toString());
    const article = page.locator(`#failures article[id="fail-${rule.id}"] .case`).first();
    expect(await article.locator('.violation').innerText()).toBe("step 3: the run's events go on after request.cancelled");
    expect(await article.locator('p').first().innerText()).toMatch(/^Shrunk counterexample after 2 sequence/);
    expect(await article.locator('pre').first().innerText()).toMatch(/^1\. start run A\n {3}request 1: POST \/v1\/execute -> 200\n {5}curl /);
    await page.close();
  });

  it('states a run-wide cause once, first, and lists the rules it stopped by area instead of as blockers', async () => {
    const unreachable = await certify({ profile: profileFromEnv('http://127.0.0.1:9', {}), patterns: ['v8.missions.get.*', 'v1.errors.*'], seed: 1 });
    const causeFile = join(dir, 'cause.html');
    writeFileSync(causeFile, renderHtml(unreachable.report));
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(pathToFileURL(causeFile).toString());
    expect(await page.evaluate('document.querySelector("main").firstElementChild.id')).toBe('cause');
    const cause = await page.locator('#cause').innerText();
    expect(cause).toMatch(/http:\/\/127\.0\.0\.1:9 did not answer the first probe/);
    expect(cause).toMatch(/v8\.missions \(\d+\): get\./);
    expect(await page.locator('#failures article').count()).toBe(0);
    await page.evaluate(OPEN_ALL);
    expect((await page.locator('body').innerText()).match(/did not answer the first probe/g)).toHaveLength(1);
    await page.close();
  });

  it('filters rules by verdict and lists observations', async () => {
    const { page } = await open(1280);
    const visible = () => page.locator('#rules .rule:not(.hidden)').count();
    const all = await visible();
    await page.uncheck('.filters input[value="pass"]');
    const failing = run.report.rules.filter((r) => r.verdict !== 'pass').length;
    expect(await visible()).toBe(failing);
    expect(all).toBe(run.report.rules.length);
    expect(await page.locator('#observations li').count()).toBe(run.report.observations.length);
    await page.close();
  });
});
