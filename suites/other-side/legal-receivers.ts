/**
 * Webhook receivers that choose differently from the sample where the seed leaves the choice open
 * (or that break in ways certify-receiver must tell apart from a verdict), in this process, on
 * 127.0.0.1. Each verifies deliveries with the package's own verifier, then applies its choices.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { certifyReceiver, type ReceiverOptions } from '../../src/receiver-cert/certify-receiver.ts';
import { receiverRules } from '../../src/receiver-cert/rules.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { MemoryEventStore, verifyWebhook } from '../../src/webhooks/verify.ts';
import { TEST_SECRET } from './support.ts';

export interface ReceiverChoices {
  /** The status for a delivery without Service-Webhook-Signature (the verifier's is 401). */
  unsignedStatus?: number;
  /** Every answer labelled application/json with a body that is not JSON. */
  mislabelledBody?: boolean;
  /** What a request other than POST gets: never an answer, or a reset connection (405 otherwise). */
  otherMethods?: 'hang' | 'reset';
  /** Refuses (409) a sequence past the next one it expects of a run, so that the sender retries it in order. */
  holdGaps?: boolean;
  /** How far the receiver's clock is ahead of the real one, in seconds (its Date header follows it). */
  clockOffsetSeconds?: number;
  toleranceSeconds?: number;
  /** Sends no Date header. */
  noDate?: boolean;
  /** Refuses (400) a body with a field the seed does not name. */
  strictFields?: boolean;
  /** Answers every POST with this status, verifying nothing (a wrong path: 404). */
  everyPost?: number;
  /** Never answers a POST. */
  hangPost?: boolean;
  /** Answers a delivery it took with 200 and a body of this many bytes (no sentence governs the answer body). */
  bigBodyBytes?: number;
  /** Parses the body and checks apiVersion before verifying the signature (400 for either), as `express.json()` before the check does. */
  parseFirst?: boolean;
}

export interface LegalReceiver {
  url: string;
  close(): Promise<void>;
}

const SEED_FIELDS = new Set(['apiVersion', 'event_id', 'run_id', 'sequence', 'type', 'created_at']);

export async function startLegalReceiver(secret: string, choices: ReceiverChoices = {}, path = '/hook'): Promise<LegalReceiver> {
  const store = new MemoryEventStore();
  const expected = new Map<string, number>();
  const offsetMs = (choices.clockOffsetSeconds ?? 0) * 1000;
  const server = createServer(async (req, res) => {
    if (choices.noDate) res.sendDate = false;
    else if (offsetMs !== 0) {
      res.sendDate = false;
      res.setHeader('date', new Date(Date.now() + offsetMs).toUTCString());
    }
    const reply = (status: number, text?: string) => answer(res, status, text, choices.mislabelledBody === true);
    if (req.method !== 'POST') {
      if (choices.otherMethods === 'hang') return;
      if (choices.otherMethods === 'reset') return void req.socket.destroy();
      return reply(405);
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (choices.hangPost) return;
    if (choices.everyPost !== undefined) return reply(choices.everyPost, 'not here');
    if (choices.unsignedStatus !== undefined && req.headers['service-webhook-signature'] === undefined) return reply(choices.unsignedStatus, 'missing signature');
    if (choices.parseFirst) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(400, 'not JSON');
      }
      if ((parsed as { apiVersion?: unknown } | null)?.apiVersion !== 'v1') return reply(400, 'bad apiVersion');
    }
    const result = await verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret, store, now: Date.now() + offsetMs, ...(choices.toleranceSeconds ? { toleranceSeconds: choices.toleranceSeconds } : {}) });
    if (!result.ok) return reply(result.status, result.reason);
    if (choices.strictFields && Object.keys(result.event).some((k) => !SEED_FIELDS.has(k))) {
      await store.release(result.eventId);
      return reply(400, 'unknown field');
    }
    if (choices.holdGaps && !result.duplicate) {
      const next = expected.get(result.event.run_id) ?? 1;
      if (result.event.sequence > next) {
        await store.release(result.eventId);
        return reply(409, 'an earlier event of this run has not arrived: retry later');
      }
      expected.set(result.event.run_id, Math.max(next, result.event.sequence + 1));
    }
    if (choices.bigBodyBytes !== undefined) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(choices.bigBodyBytes));
    // A 204 carries no body: a receiver that labels every answer JSON says so on a 200.
    reply(choices.mislabelledBody ? 200 : 204);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, status: number, text: string | undefined, mislabelled: boolean): void {
  if (mislabelled) return void res.writeHead(status, { 'content-type': 'application/json' }).end(text ?? 'ok');
  res.writeHead(status).end(status === 204 ? undefined : text);
}

/** certify-receiver against a legal receiver making `choices`, stopped after the run. */
export async function certifyAgainst(choices: ReceiverChoices, options: Partial<ReceiverOptions> = {}, path?: string) {
  const receiver = await startLegalReceiver(TEST_SECRET, choices, path);
  try {
    return await certifyReceiver({ url: receiver.url, secret: TEST_SECRET, seed: 7, ...options });
  } finally {
    await receiver.close();
  }
}

export const verdicts = (results: readonly RuleResult[]) => Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));
export const ALL_PASS = Object.fromEntries(receiverRules.map((r) => [r.id, 'pass']));
