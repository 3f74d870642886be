import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/reports/html.ts';
import { effectOf, policyOf } from '../../src/reports/model.ts';
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
    expect(failures).toMatch(/Case 2\. execute with malformed JSON \(400\)/);
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
