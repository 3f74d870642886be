/**
 * Recordings written by a third-party HAR writer: Playwright's `recordHar` on the system Chromium,
 * of a page script (a client apicert did not write the traffic of) calling the fake's /v8 and /v1
 * surfaces: create, read, a stream read whole, a stream the page aborts, a refusal, a webhook
 * registration, a task and a turn.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { RunningFake } from '../../src/fake/server.ts';
import type { Profile } from '../../src/profile/schema.ts';

export const CHROMIUM = '/usr/bin/chromium';
const PAGE_ORIGIN = 'https://integration.example';

/** Why the browser recordings cannot be made here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent (apt-get install -y chromium): the Playwright recordings need the system Chromium`;
}

export interface BrowserHarOptions {
  /** Playwright's `recordHar.content`: bodies embedded, or omitted (sizes kept, text empty). */
  content: 'embed' | 'omit';
  mode: 'full' | 'minimal';
  /** Write `.har.gz` (Playwright writes a plain file; apicert must read both). */
  gzip?: boolean;
}

interface PageTokens {
  v8: string;
  v1: string;
}

/** The page script: what an integration written by someone else might do. Runs in the browser. */
async function pageScript(tokens: PageTokens & { base: string }): Promise<string[]> {
  const log: string[] = [];
  const fetch = (path: string, init?: RequestInit) => globalThis.fetch(`${tokens.base}${path}`, init);
  const v8 = { authorization: `Bearer ${tokens.v8}` };
  const v1 = { authorization: `Bearer ${tokens.v1}` };
  const json = { 'content-type': 'application/json' };
  const created = await fetch('/v8/missions', {
    method: 'POST',
    headers: { ...v8, ...json, 'idempotency-key': `page-${Date.now()}` },
    body: JSON.stringify({ goalSpec: { task: 'apicert scenario succeeds: summarise three short documents' }, resourceBudget: { maximumSteps: 50, maximumToolCalls: 20, maximumElapsedMs: 60000, maximumParallelism: 2 } }),
  });
  const mission = (await created.json()) as { runId: string };
  log.push(`create ${created.status}`);
  log.push(`read ${(await (await fetch(`/v8/missions/${mission.runId}`, { headers: v8 })).text()).length > 0 ? 'ok' : 'empty'}`);
  // The whole stream, read to its end.
  const events = await fetch(`/v8/missions/${mission.runId}/events`, { headers: { ...v8, accept: 'text/event-stream' } });
  log.push(`events ${events.status} ${(await events.text()).length}`);
  // A second mission parks waiting (its stream stays open); the page walks away after the first chunk: the browser records it aborted.
  const abort = new AbortController();
  const second = await fetch('/v8/missions', { method: 'POST', headers: { ...v8, ...json, 'idempotency-key': `page-2-${Date.now()}` }, body: JSON.stringify({ goalSpec: { task: 'apicert scenario waits: ask the operator before sending' }, resourceBudget: { maximumSteps: 50, maximumToolCalls: 20, maximumElapsedMs: 600000, maximumParallelism: 2 } }) });
  const secondId = ((await second.json()) as { runId: string }).runId;
  const stream = await fetch(`/v8/missions/${secondId}/events`, { headers: { ...v8, accept: 'text/event-stream' }, signal: abort.signal });
  await stream.body!.getReader().read();
  abort.abort();
  const missing = await fetch('/v8/missions/00000000-0000-7000-8000-000000000000', { headers: v8 });
  log.push(`missing ${missing.status} ${(await missing.text()).length}`);
  const task = await fetch('/v1/execute', { method: 'POST', headers: { ...v1, ...json, accept: 'application/json' }, body: JSON.stringify({ mode: 'task', task: { scenario: 'apicert.completes', instruction: 'summarise three short documents' } }) });
  const run = (await task.json()) as { run_id: string };
  log.push(`task ${task.status}`);
  // Read whole: Chromium keeps in the HAR only the bodies the page consumed.
  const readBack = await fetch(`/v1/runs/${run.run_id}`, { headers: v1 });
  log.push(`run ${readBack.status} ${(await readBack.text()).length}`);
  const turn = await fetch('/v1/execute', {
    method: 'POST',
    headers: { ...v1, ...json, accept: 'text/event-stream' },
    body: JSON.stringify({ apiVersion: 'v1', requestId: `req-page-${Date.now()}`, client: { kind: 'backend', name: 'page', version: '1.0.0' }, messages: [{ id: 'msg-1', role: 'user', parts: [{ type: 'text', text: 'Reply with one short sentence.' }] }] }),
  });
  log.push(`turn ${turn.status} ${(await turn.text()).length}`);
  const hook = await fetch('/v1/webhooks', { method: 'POST', headers: { ...v1, ...json }, body: JSON.stringify({ url: 'https://hooks.example.com/page/1', description: 'page registration' }) });
  log.push(`webhook ${hook.status} ${(await hook.text()).length}`);
  return log;
}

/**
 * Records the page script against `fake` into a HAR file; returns its path, what the page saw, and
 * the profile whose credentials it used (each embeddedProfile call mints its own).
 */
export async function recordInChromium(fake: RunningFake, options: BrowserHarOptions): Promise<{ file: string; log: string[]; profile: Profile }> {
  const profile = embeddedProfile(fake);
  const token = (surface: 'v8' | 'v1', scope: string) => profile.credentials.find((c) => c.surfaces.includes(surface) && !c.expired && c.scopes.includes(scope))!.token;
  const tokens: PageTokens = { v8: token('v8', 'missions:write'), v1: token('v1', 'runs:write') };
  const dir = mkdtempSync(join(tmpdir(), 'apicert-playwright-'));
  const file = join(dir, `page.${options.content}.${options.mode}.har${options.gzip ? '.gz' : ''}`);
  // Playwright zips a `.zip` HAR only; gzip is applied after, as a user would with `gzip page.har`.
  const plain = options.gzip ? join(dir, 'page.har') : file;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-web-security'],
    // launch() gives every browser a fresh temporary user-data-dir of its own (it refuses the flag).
  });
  try {
    const context = await browser.newContext({ recordHar: { path: plain, content: options.content, mode: options.mode } });
    // The page comes from an https origin of its own (the /v8 surface refuses http:// origins, as
    // the spec says), served by Playwright; its calls to the fake are cross-origin, which the
    // fake does not answer CORS for, so the browser's web security is off for this page.
    await context.route(`${PAGE_ORIGIN}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>integration</title>' }));
    const page = await context.newPage();
    await page.goto(`${PAGE_ORIGIN}/`);
    const log = await page.evaluate(pageScript, { ...tokens, base: fake.baseUrl });
    await context.close();
    if (options.gzip) {
      const { gzipSync } = await import('node:zlib');
      const { readFileSync, writeFileSync } = await import('node:fs');
      writeFileSync(file, gzipSync(readFileSync(plain)));
    }
    return { file, log, profile };
  } finally {
    await browser.close();
  }
}
