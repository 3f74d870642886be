/**
 * `apicert certify-receiver`: sends signed deliveries to a team's webhook receiver and judges its
 * answers with the receiver rules, into the same report as `certify`.
 */
import { randomInt } from 'node:crypto';
import { TransportError, type Rule } from '../rule/index.ts';
import { RequestBudget } from '../probe/budget.ts';
import { createDispatcher, type ProbeClient } from '../probe/client.ts';
import { networkDispatcher } from '../probe/dispatcher.ts';
import { networkSecrets, type Network } from '../profile/network.ts';
import { parseProfile, ProfileError } from '../profile/load.ts';
import { ownTextOf } from '../redact/own-text.ts';
import { Redactor } from '../redact/redactor.ts';
import { buildReport } from '../reports/model.ts';
import { HARNESS_VERSION, probeFor, TargetUnreachable, type Certification } from '../runner/certify.ts';
import type { RuleResult } from '../rule/index.ts';
import { runRules, selectRules } from '../runner/run.ts';
import { RECEIVER_SECRET, RECEIVER_SECRET_ENV, receiverRules } from './rules.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export interface ReceiverOptions {
  url: string;
  /** The endpoint's signing secret, read by the caller from an environment variable. */
  secret: string | undefined;
  /** That variable's name, for the reason a rule gives when it is unset (default `APICERT_WEBHOOK_SECRET`). */
  secretEnv?: string;
  /** Hosts besides loopback the user allows deliveries to. */
  allowHosts?: readonly string[];
  requestTimeoutMs?: number;
  patterns?: string[];
  seed?: number;
  rules?: readonly Rule[];
  onResult?: (result: RuleResult) => void;
  /** Said before the first delivery, as `certify` says them: a secret too short to redact everywhere. */
  onWarning?: (warning: string) => void;
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

/** A URL as a usage error may show it: scheme, host and path, never credentials, the query or the fragment. */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * Failures of the preflight that mean no connection was made (refused, no such host, no route, the
 * TLS handshake refused): by their code, which the evidence's error starts with. Any other (a
 * receiver that hangs or resets on GET) came after a connection: the receiver is there, and is
 * judged on the POSTs the seed describes ("Each delivery is an HTTP POST").
 */
const NOT_CONNECTED = /^(ECONNREFUSED|ENOTFOUND|EAI_\w+|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ERR_SSL_\w+|ERR_TLS_\w+|UNABLE_TO_\w+|\w*CERT\w*)(:|$)/;

/**
 * Why no connection to the receiver could be made, or undefined when one was. A GET is enough to
 * tell; over TLS, a handshake the receiver refused after it seemed done (a client certificate it
 * wanted) reaches undici as a closed socket, so a GET that failed that way is tried again on a raw
 * connection, which sees the TLS alert.
 */
async function notConnected(preflight: ProbeClient, url: URL, signal: AbortSignal | undefined): Promise<string | undefined> {
  const target = `${url.pathname}${url.search}`;
  const failed = async (send: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await send();
      return undefined;
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      // Interrupted (Ctrl-C, SIGTERM) is no answer about the receiver: the run goes on to report every rule not run, and exits 130 or 143.
      if (signal?.aborted) return '';
      return NOT_CONNECTED.test(preflight.evidence.at(-1)?.error ?? '') ? error.message : '';
    }
  };
  const viaUndici = await failed(() => preflight.send({ method: 'GET', path: target, credential: null, label: 'preflight' }));
  if (viaUndici !== '' || url.protocol !== 'https:' || signal?.aborted) return viaUndici || undefined;
  const raw = await failed(() => preflight.sendRaw({ method: 'GET', target, headers: [['Connection', 'close']], credential: null, label: 'preflight, on a raw connection' }));
  return raw || undefined;
}

/** Deliveries go to loopback, or to a host the user named: apicert never probes a host on a guess. */
export function receiverUrl(url: string, allowHosts: readonly string[] = []): URL {
  const parsed = URL.parse(url);
  // Not echoed: a receiver's URL may carry its key in the query.
  if (!parsed) throw new ProfileError("--url is not a URL: give the receiver's full address, e.g. http://127.0.0.1:8080/webhooks");
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ProfileError(`--url ${shownUrl(parsed)}: only http and https receivers can be certified`);
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
  // The query (a key, often) is no part of a profile's target, which refuses one: each request carries it in its own target.
  const profile = parseProfile({ target: `${url.origin}${url.pathname}`, safety: { requestTimeoutMs: options.requestTimeoutMs ?? 5_000, requestBudget: 200, concurrency: 2 }, ...(network ? { network } : {}) }, 'receiver');
  const redactor = new Redactor();
  redactor.add(options.secret, 'signing-secret');
  // A receiver's URL often carries its own key in the query (`?token=`): the report names the URL without it, and no output shows it.
  for (const [name, value] of url.searchParams) redactor.add(value, `receiver-url-query:${name}`);
  // And each value as written, and percent-decoded without the form rule for `+`: a query mixing encodings has other forms.
  for (const [name, value] of rawQueryValues(url.search)) {
    redactor.add(value, `receiver-url-query:${name}`);
    redactor.add(percentDecoded(value), `receiver-url-query:${name}`);
  }
  for (const [label, value] of networkSecrets(profile.network)) redactor.add(value, label.replace(/^header:\w+:/, 'header:receiver:'));
  redactor.protect(ownTextOf(options.rules ?? receiverRules));
  for (const warning of redactor.warnings) options.onWarning?.(warning);
  // The files are read and checked before the first delivery: a mistake is exit 2 with nothing sent.
  const dispatcher = profile.network ? await networkDispatcher(profile.network) : createDispatcher();
  const budget = new RequestBudget(profile.safety.requestBudget);
  // No sentence governs a receiver's answer bodies: a malformed one is the rule's to record, not a failure.
  const probe = probeFor(profile, redactor, budget, dispatcher, options.signal).fork(undefined, { bodiesUngoverned: true });
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  try {
    const unreachable = await notConnected(probe.fork(), url, options.signal);
    if (unreachable) throw new TargetUnreachable(`the receiver at ${url.origin}${url.pathname} did not answer (${redactor.text(unreachable)}): start it, or check --url`);
    const rules = selectRules(options.rules ?? receiverRules, { patterns: options.patterns });
    const services = { redactor, provided: new Map([[RECEIVER_SECRET_ENV.name, options.secretEnv ?? 'APICERT_WEBHOOK_SECRET'], ...(options.secret ? [[RECEIVER_SECRET.name, options.secret] as const] : [])]) };
    const target = { baseUrl: url.toString(), kind: 'remote' as const };
    const results = await runRules({ target, profile, rules, seed, probe, services, onResult: options.onResult, ...(options.signal ? { signal: options.signal } : {}) });
    const stopped = options.signal?.aborted ? (options.signal.reason as Error).message : undefined;
    const report = buildReport({ results, version: HARNESS_VERSION, target: { baseUrl: `${url.origin}${url.pathname}`, kind: 'remote' }, catalog: options.rules ?? receiverRules, selection: options.patterns?.length ? { rules: [...options.patterns] } : {}, startedAt, finishedAt: new Date(), seed, requests: budget.used, warnings: redactor.warnings, ...(stopped ? { stopped } : {}) });
    return { report, results };
  } finally {
    await dispatcher.close();
  }
}

/** Each `name=value` of a query as written (split on `&` and the first `=`), before any decoding. */
function rawQueryValues(search: string): Array<[name: string, value: string]> {
  return search
    .replace(/^\?/, '')
    .split('&')
    .flatMap((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [] : [[pair.slice(0, at), pair.slice(at + 1)] as [string, string]];
    });
}

/** Percent-decoding alone (a `+` stays a `+`); a value that is not valid percent-encoding stays as written. */
function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
