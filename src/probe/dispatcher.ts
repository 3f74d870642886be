/**
 * The run's connections to a real deployment, built from the profile's `network` settings with
 * undici's own dispatchers: an Agent whose `connect` options carry the private CA and the client
 * certificate, and an EnvHttpProxyAgent (a ProxyAgent per scheme, NO_PROXY honoured) that tunnels
 * HTTPS with CONNECT and forwards plain HTTP. Every file and URL is read and checked here, before
 * the first request, so a mistake is a ProfileError (exit 2) with nothing sent.
 */
import { readFile } from 'node:fs/promises';
import { createSecureContext, rootCertificates, type ConnectionOptions } from 'node:tls';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { ProfileError } from '../profile/load.ts';
import { printableProxy, type Network } from '../profile/network.ts';
import { agentOptions, DEFAULT_LIMITS, type TransportLimits } from './transport.ts';
import { addressOf } from './raw.ts';

export type TlsFiles = Pick<ConnectionOptions, 'ca' | 'cert' | 'key'>;

async function pem(path: string, field: string, kind: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ProfileError(`network.tls.${field}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}): give the path of a PEM ${kind}, relative to the profile's folder`);
  }
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) throw new ProfileError(`network.tls.${field}: ${path} is not PEM (no "-----BEGIN" line): give a PEM ${kind}`);
  return text;
}

/** The CA bundle (added to Node's roots) and the client certificate, read and proven usable together. */
export async function tlsFiles(tls: Network['tls']): Promise<TlsFiles | undefined> {
  if (!tls) return undefined;
  const out: TlsFiles = {};
  if (tls.ca) out.ca = [...rootCertificates, await pem(tls.ca, 'ca', 'certificate bundle')];
  if (tls.cert) out.cert = await pem(tls.cert, 'cert', 'certificate');
  if (tls.key) out.key = await pem(tls.key, 'key', 'private key');
  try {
    createSecureContext(out);
  } catch (error) {
    const what = tls.cert ? 'the client certificate and key (network.tls.cert, network.tls.key)' : 'network.tls.ca';
    throw new ProfileError(`${what} cannot be used: ${(error as Error).message}; give an unencrypted PEM key that matches the certificate`);
  }
  return out;
}

function checkedProxy(url: string, where: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProfileError(`${where} is not a URL: give one such as http://proxy.example:3128`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ProfileError(`${where} is ${printableProxy(url)}: apicert speaks to http:// and https:// proxies only`);
  return url;
}

/** The proxy settings the run uses: the profile's, else the environment's (checked, since undici would throw on a bad one mid-run). */
function proxySettings(network: Network | undefined, env: NodeJS.ProcessEnv): { httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined {
  if (network?.proxy === 'none') return undefined;
  const noProxy = network?.noProxy ?? env.no_proxy ?? env.NO_PROXY;
  if (network?.proxy) return { httpProxy: network.proxy, httpsProxy: network.proxy, ...(noProxy !== undefined ? { noProxy } : {}) };
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY;
  const httpsProxy = env.https_proxy ?? env.HTTPS_PROXY;
  if (!httpProxy && !httpsProxy) return undefined;
  const out: { httpProxy?: string; httpsProxy?: string; noProxy?: string } = {};
  if (httpProxy) out.httpProxy = checkedProxy(httpProxy, 'HTTP_PROXY');
  // Like curl: HTTPS requests use HTTPS_PROXY, and HTTP_PROXY only when HTTPS_PROXY is unset.
  out.httpsProxy = httpsProxy ? checkedProxy(httpsProxy, 'HTTPS_PROXY') : httpProxy;
  if (noProxy !== undefined) out.noProxy = noProxy;
  return out;
}

export interface NetworkDispatcherOptions {
  limits?: TransportLimits;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** The pool's size and keep-alive, where a caller needs others than a run's (the passive proxy). */
  pool?: { connections?: number; keepAliveTimeout?: number };
}

/** The dispatcher for a profile's target: direct, or through the proxy the profile or the environment names. */
export async function networkDispatcher(network: Network | undefined, options: NetworkDispatcherOptions = {}): Promise<Dispatcher> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const tls = await tlsFiles(network?.tls);
  const pool = agentOptions(limits);
  const connect = { ...pool.connect, ...tls };
  const base = { ...pool, ...options.pool, connect };
  const proxy = proxySettings(network, options.env ?? process.env);
  if (!proxy) return new Agent(base);
  // Through the proxy, TLS to the target is `requestTls` (inside the CONNECT tunnel), and to an https:// proxy `proxyTls`.
  return new EnvHttpProxyAgent({
    ...base,
    ...proxy,
    // An empty NO_PROXY proxies everything; undici falls back to the environment only when this is undefined.
    noProxy: proxy.noProxy ?? '',
    requestTls: connect,
    proxyTls: { timeout: limits.connectTimeoutMs, ...(tls?.ca ? { ca: tls.ca } : {}) },
    connectTimeout: limits.connectTimeoutMs,
  });
}

/** Whether NO_PROXY (comma or space separated: `*`, hosts, `.domain` or `*.domain` suffixes, each with an optional port) exempts a host, as undici's EnvHttpProxyAgent reads it. */
export function exemptFromProxy(noProxy: string, hostname: string, port: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const bracketed = /^\[(.+)\]:(\d+)$/.exec(entry);
    const [name, entryPort] = bracketed ? [bracketed[1]!, bracketed[2]!] : entry.split(':').length === 2 ? (entry.split(':') as [string, string]) : [entry, ''];
    if (entryPort && entryPort !== port) continue;
    if (name === '*') return true;
    const wanted = name.replace(/^\*?\./, '').replace(/^(.+)\.$/, '$1').toLowerCase();
    if (host === wanted || host.endsWith(`.${wanted}`)) return true;
  }
  return false;
}

/**
 * How `apicert proxy` reaches its one upstream, decided once: the TLS files (CA, client
 * certificate) and the forward proxy the profile's network settings or the environment name, or
 * none. Without a network section the upstream is reached directly, as it always was.
 */
export interface UpstreamRoute {
  tls: TlsFiles | undefined;
  /** The forward proxy to go through (absolute form for http, a CONNECT tunnel for https), when the upstream is not exempt. */
  proxy: URL | undefined;
  connectTimeoutMs: number;
}

export async function upstreamRoute(network: Network | undefined, upstream: URL, env: NodeJS.ProcessEnv = process.env): Promise<UpstreamRoute> {
  const connectTimeoutMs = DEFAULT_LIMITS.connectTimeoutMs;
  if (!network) return { tls: undefined, proxy: undefined, connectTimeoutMs };
  const tls = await tlsFiles(network.tls);
  const settings = proxySettings(network, env);
  const proxy = upstream.protocol === 'https:' ? settings?.httpsProxy : settings?.httpProxy;
  const exempt = proxy === undefined || exemptFromProxy(settings?.noProxy ?? '', upstream.hostname, String(addressOf(upstream).port));
  return { tls, proxy: exempt ? undefined : new URL(proxy), connectTimeoutMs };
}
