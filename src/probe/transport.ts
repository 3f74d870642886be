/**
 * Transport limits and how transport trouble is told: every way an exchange can fail without an
 * HTTP answer becomes one sentence a user can act on, and the verdict is `inconclusive`.
 */
import { Agent, type Dispatcher } from 'undici';

export interface TransportLimits {
  connectTimeoutMs: number;
  /** Response headers larger than this end the exchange (a hostile target sends megabytes). */
  maxHeaderBytes: number;
}

export const DEFAULT_LIMITS: TransportLimits = { connectTimeoutMs: 5_000, maxHeaderBytes: 64 * 1024 };

/** The pool every dispatcher of a run uses, direct or through a proxy (dispatcher.ts). */
export function agentOptions(limits: TransportLimits = DEFAULT_LIMITS) {
  return { keepAliveTimeout: 2_000, connections: 64, connect: { timeout: limits.connectTimeoutMs }, maxHeaderSize: limits.maxHeaderBytes };
}

export function createDispatcher(limits: TransportLimits = DEFAULT_LIMITS): Agent {
  return new Agent(agentOptions(limits));
}

/** Closes the connections; a socket a stuck target holds open is destroyed after `graceMs`. */
export async function closeDispatcher(dispatcher: Dispatcher, graceMs = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = dispatcher.close().then(() => true);
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const closed = await Promise.race([graceful, late]).catch(() => false);
  clearTimeout(timer);
  if (!closed) await dispatcher.destroy().catch(() => undefined);
}

/** Why a run or check stopped its requests: the reason travels as the AbortSignal's reason. */
export class Stopped extends Error {
  override readonly name = 'Stopped';
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

export interface TransportContext {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  totalTimeoutMs: number;
  maxHeaderBytes: number;
}

const UNTRUSTED_CERT = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT']);

/** What to do about a certificate Node refused, or a client certificate the target wanted: the profile's network.tls. */
function tlsHint(code: string, message: string | undefined): string | undefined {
  const said = message ?? code;
  if (UNTRUSTED_CERT.has(code)) return `${said} (a private certificate authority: give its PEM bundle as network.tls.ca in the profile)`;
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' || code === 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE') return `${said} (the target may want a client certificate: network.tls.cert and network.tls.key in the profile)`;
  return undefined;
}

/** One line saying what happened on the wire, with the library's code first (checks match on it). */
export function describeTransportError(error: unknown, limits: TransportContext, signal?: AbortSignal): string {
  if (signal?.aborted && signal.reason instanceof Stopped) return `stopped: ${signal.reason.message}`;
  const err = (error ?? {}) as { name?: string; code?: unknown; message?: string; cause?: { code?: unknown; message?: string } };
  const rawCode = err.code ?? err.cause?.code;
  const code = typeof rawCode === 'string' ? rawCode : (err.name === 'TimeoutError' || (err.name === 'AbortError' && signal?.aborted) ? 'TOTAL_TIMEOUT' : undefined);
  const told: Record<string, string> = {
    UND_ERR_CONNECT_TIMEOUT: `no connection within ${seconds(limits.connectTimeoutMs)}`,
    UND_ERR_HEADERS_TIMEOUT: `no response headers within ${seconds(limits.headersTimeoutMs)}`,
    UND_ERR_BODY_TIMEOUT: `the body stalled for more than ${seconds(limits.idleTimeoutMs)} (Body Timeout)`,
    TOTAL_TIMEOUT: `no complete answer within ${seconds(limits.totalTimeoutMs)}`,
    UND_ERR_HEADERS_OVERFLOW: `response headers over ${Math.round(limits.maxHeaderBytes / 1024)} KiB`,
    ECONNRESET: 'the target reset the connection',
    UND_ERR_SOCKET: 'the target closed or reset the connection',
    ECONNREFUSED: 'connection refused',
    EPIPE: 'the target closed the connection while apicert was sending',
  };
  const known = code ? (told[code] ?? tlsHint(code, err.message ?? err.cause?.message)) : undefined;
  if (known) return `${code}: ${known}`;
  if (typeof code === 'string' && code.startsWith('HPE_')) return `${code}: HTTP protocol error (${err.message ?? err.cause?.message ?? 'malformed response'})`;
  return [code, err.message ?? err.cause?.message].filter(Boolean).join(': ') || String(error);
}
