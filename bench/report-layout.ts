/**
 * `npm run bench:report`: prints figures, asserts nothing. Certifies the embedded fake with six
 * faults, renders report.html and opens it in Debian's chromium at two widths: how wide and tall
 * the page is, where the first blocker starts, how many blockers show on the first screen, and
 * how many requests the page made (the file itself is the only one it may make).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { renderHtml } from '../src/reports/html.ts';
import { certify } from '../src/runner/certify.ts';

const FAULTS = [
  'v8.missions.idempotency.conflict/replays-different-body',
  'v8.auth.scope-matrix/coverage-without-scope',
  'v1.errors.problem-shape/extra-member',
  'v1.webhooks.delivery.timestamp/milliseconds',
  'v1.runs.approve.resumes/no-resume',
  'mcp.transport.get-405/opens-stream',
] as const;
const FOLD = 800;
const CHROMIUM = process.env.APICERT_CHROMIUM ?? '/usr/bin/chromium';

const { report } = await certify({ faults: [...FAULTS], seed: 11 });
const html = renderHtml(report);
const file = join(mkdtempSync(join(tmpdir(), 'apicert-bench-')), 'report.html');
writeFileSync(file, html);
const url = pathToFileURL(file).toString();
console.log(`report.html: ${(html.length / 1024).toFixed(0)} KiB for ${report.rules.length} rules, ${report.summary.required.fail} failing; report.json ${(JSON.stringify(report).length / 1024).toFixed(0)} KiB`);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
try {
  for (const width of [1280, 1400]) {
    const page = await browser.newPage({ viewport: { width, height: FOLD } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    const figures = await page.evaluate(`(() => {
      const tops = [...document.querySelectorAll('#failures .toc li')].map((e) => e.getBoundingClientRect().bottom + scrollY);
      const first = document.querySelector('#failures article');
      return {
        scrollWidth: document.documentElement.scrollWidth,
        scrollHeight: document.documentElement.scrollHeight,
        firstBlockerY: first ? Math.round(first.getBoundingClientRect().top + scrollY) : null,
        blockersListed: tops.length,
        blockersOnFirstScreen: tops.filter((y) => y <= ${FOLD}).length,
      };
    })()`);
    console.log(`${width} px: ${JSON.stringify(figures)}, requests ${requests.length}`);
    await page.close();
  }
} finally {
  await browser.close();
}
