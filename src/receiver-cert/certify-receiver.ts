/**
 * `apicert certify-receiver`: sends signed deliveries to a team's webhook receiver and judges its
 * answers with the receiver rules, into the same report as `certify`.
 */
import { randomInt } from 'node:crypto';
import { TransportError, type Rule } from '../rule/index.ts';
import { RequestBudget } from '../probe/budget.ts';
import { createDispatcher } from '../probe/client.ts';
import { networkDispatcher } from '../probe/dispatcher.ts';
import { networkSecrets, type Network } from '../profile/network.ts';
import { parseProfile, ProfileError } from '../profile/load.ts';
import { ownTextOf } from '../redact/own-text.ts';
import { Redactor } from '../redact/redactor.ts';
import { buildReport } from '../reports/model.ts';
import { HARNESS_VERSION, probeFor, TargetUnreachable, type Certification } from '../runner/certify.ts';
import type { RuleResult } from '../rule/index.ts';
import { runRules, selectRules } from '../runner/run.ts';
import { RECEIVER_SECRET, receiverRules } from './rules.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export interface ReceiverOptions {
  url: string;
  /** The endpoint's signing secret, read by the caller from an environment variable. */
  secret: string | undefined;
  /** Hosts besides loopback the user allows deliveries to. */
  allowHosts?: readonly string[];
  requestTimeoutMs?: number;
  patterns?: string[];
  seed?: number;
  rules?: readonly Rule[];
  onResult?: (result: RuleResult) => void;
  /** Aborted (SIGINT, SIGTERM): the rule under way stops, the rest are reported not run. */
  signal?: AbortSignal;
  /** The receiver's own entry: headers sent with every delivery, a private CA and a client certificate (paths already resolved). */
  network?: { headers?: Record<string, string>; tls?: Network['tls'] };
}

/**
 * The receiver's entry as network settings: its headers on every path (a receiver has no
 * surfaces), its TLS files, and never a proxy (deliveries go to loopback or a host named).
 */
export function receiverNetwork(entry: ReceiverOptions['network']): Network | undefined {
  if (!entry?.headers && !entry?.tls) return undefined;
  const headers = entry.headers ?? {};
  return { headers: { v8: headers, v1: headers, mcp: headers }, ...(entry.tls ? { tls: entry.tls } : {}), proxy: 'none' };
}

/** Deliveries go to loopback, or to a host the user named: apicert never probes a host on a guess. */
export function receiverUrl(url: string, allowHosts: readonly string[] = []): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProfileError(`--url ${url} is not a URL: give the receiver's full address, e.g. http://127.0.0.1:8080/webhooks`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ProfileError(`--url ${url}: only http and https receivers can be certified`);
  if (parsed.username || parsed.password) throw new ProfileError('--url must not carry credentials: the signing secret comes from an environment variable');
  if (!LOOPBACK.has(parsed.hostname) && !allowHosts.includes(parsed.hostname)) {
    throw new ProfileError(`${parsed.hostname} is not loopback: certify-receiver only sends to 127.0.0.1, ::1, localhost or a host you name with --allow-host ${parsed.hostname}`);
  }
  return parsed;
}

export async function certifyReceiver(options: ReceiverOptions): Promise<Certification> {
  const startedAt = new Date();
  const url = receiverUrl(options.url, options.allowHosts);
  const network = receiverNetwork(options.network);
  const profile = parseProfile({ target: url.toString(), safety: { requestTimeoutMs: options.requestTimeoutMs ?? 5_000, requestBudget: 200, concurrency: 2 }, ...(network ? { network } : {}) }, 'receiver');
  const redactor = new Redactor();
  redactor.add(options.secret, 'signing-secret');
  // A receiver's URL often carries its own key in the query (`?token=`): the report names the URL without it, and no output shows it.
  for (const [name, value] of url.searchParams) redactor.add(value, `receiver-url-query:${name}`);
  for (const [label, value] of networkSecrets(profile.network)) redactor.add(value, label.replace(/^header:\w+:/, 'header:receiver:'));
  redactor.protect(ownTextOf(options.rules ?? receiverRules));
  // The files are read and checked before the first delivery: a mistake is exit 2 with nothing sent.
  const dispatcher = profile.network ? await networkDispatcher(profile.network) : createDispatcher();
  const budget = new RequestBudget(profile.safety.requestBudget);
  const probe = probeFor(profile, redactor, budget, dispatcher, options.signal);
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  try {
    try {
      await probe.fork().send({ method: 'GET', path: '', credential: null, label: 'preflight' });
    } catch (error) {
      if (error instanceof TransportError) throw new TargetUnreachable(`the receiver at ${url.origin}${url.pathname} did not answer (${error.message}): start it, or check --url`);
      throw error;
    }
    const rules = selectRules(options.rules ?? receiverRules, { patterns: options.patterns });
    const services = { redactor, provided: new Map(options.secret ? [[RECEIVER_SECRET.name, options.secret]] : []) };
    const target = { baseUrl: url.toString(), kind: 'remote' as const };
    const results = await runRules({ target, profile, rules, seed, probe, services, onResult: options.onResult, ...(options.signal ? { signal: options.signal } : {}) });
    const stopped = options.signal?.aborted ? (options.signal.reason as Error).message : undefined;
    const report = buildReport({ results, version: HARNESS_VERSION, target: { baseUrl: `${url.origin}${url.pathname}`, kind: 'remote' }, startedAt, finishedAt: new Date(), seed, requests: budget.used, ...(stopped ? { stopped } : {}) });
    return { report, results };
  } finally {
    await dispatcher.close();
  }
}
