/**
 * A webhook receiver built on `apicert/webhooks`: the README's handler, runnable. With `--fault`
 * it misbehaves in exactly one way, so `apicert certify-receiver` can be seen failing that rule.
 *
 *   WEBHOOK_SECRET=... node samples/receiver.ts [--port 8080] [--fault NAME] [--max-seconds 300]
 *
 * Loopback only; it stops itself after --max-seconds, or on SIGINT/SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { RECEIVER_FAULTS } from './faults.ts';
import { MemoryEventStore, verifyWebhook, type VerifyFailureReason, type WebhookEvent } from 'apicert/webhooks';

type Fault = keyof typeof RECEIVER_FAULTS;

/** The verifier's refusals a faulty receiver ignores. */
const IGNORED: Partial<Record<Fault, VerifyFailureReason>> = {
  'accept-bad-signature': 'bad-signature',
  'accept-unsigned': 'missing-header',
  'accept-stale': 'stale-timestamp',
  'accept-future': 'future-timestamp',
  'ignore-api-version': 'bad-api-version',
  'ignore-id-mismatch': 'id-mismatch',
};

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, fault: { type: 'string' }, 'max-seconds': { type: 'string', default: '300' } } });
const fault = values.fault as Fault | undefined;
if (fault !== undefined && !(fault in RECEIVER_FAULTS)) {
  console.error(`unknown fault ${fault}: use one of ${Object.keys(RECEIVER_FAULTS).join(', ')}`);
  process.exit(2);
}
const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('set WEBHOOK_SECRET to the endpoint signing secret');
  process.exit(2);
}

const applied: WebhookEvent[] = [];
const highestSequence = new Map<string, number>();
/** The effect of an event; a real service writes to its database here. */
async function handle(event: WebhookEvent): Promise<void> {
  applied.push(event);
}

const store = new MemoryEventStore(); // in production: a table with a unique event_id column
const server = createServer(async (req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  let rawBody: Buffer | string = Buffer.concat(chunks);
  if (fault === 'reserialize') {
    try { rawBody = JSON.stringify(JSON.parse(rawBody.toString('utf8'))); } catch { return void res.writeHead(400).end('not JSON'); }
  }
  if (fault === 'parse-before-verify') {
    // The fault: the body is parsed and checked before its signature is (signature rule 3 says the other way round).
    let parsed: unknown;
    try { parsed = JSON.parse(rawBody.toString('utf8')); } catch { return void res.writeHead(400).end('not JSON'); }
    if ((parsed as { apiVersion?: unknown } | null)?.apiVersion !== 'v1') return void res.writeHead(400).end('bad-api-version');
  }
  if (fault === 'duplicate-before-verify' && applied.some((event) => String(event.event_id) === req.headers['service-webhook-id'])) {
    // The fault: a known id is taken for a duplicate before its signature is verified (signature rules 3 and 5).
    return void res.writeHead(204).end();
  }
  const toleranceSeconds = fault === 'wide-tolerance' ? 500 : fault === 'tolerance-320' ? 320 : undefined;
  let result = await verifyWebhook({ rawBody, headers: req.headers, secret, store, ...(toleranceSeconds ? { toleranceSeconds } : {}) });
  if (!result.ok && IGNORED[fault!] === result.reason) {
    let event: WebhookEvent;
    try { event = JSON.parse(rawBody.toString()) as WebhookEvent; } catch { return void res.writeHead(400).end('not JSON'); }
    const eventId = String(event.event_id);
    result = { ok: true, status: 204, duplicate: !store.claim(eventId), event, eventId, timestamp: Date.now() / 1000 };
  }
  if (!result.ok) return void res.writeHead(result.status).end(result.reason); // 401 signature or time, 400 body
  if (fault === 'reject-valid') return void res.writeHead(500).end();
  if (fault === 'duplicate-conflict' && result.duplicate) return void res.writeHead(409).end('duplicate');
  const seen = highestSequence.get(result.event.run_id) ?? 0;
  if (fault === 'reject-out-of-order' && result.event.sequence < seen) return void res.writeHead(409).end('out of order');
  highestSequence.set(result.event.run_id, Math.max(seen, result.event.sequence));
  if (!result.duplicate) {
    try { await handle(result.event); } catch { await store.release(result.eventId); return void res.writeHead(500).end(); } // the sender retries
  }
  res.writeHead(204).end(); // a duplicate is answered with success, without repeating the effect
});

server.listen(Number(values.port), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks${fault ? ` with fault ${fault}` : ''}`);
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
setTimeout(stop, Number(values['max-seconds']) * 1000).unref();
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
