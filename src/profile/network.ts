/**
 * How apicert reaches a deployment that sits behind what a vendor's network adds: extra request
 * headers per surface (a WAF token, a tenant routing header), a private certificate authority and
 * a client certificate (mTLS), and a forward proxy. Header values and a proxy's password are
 * secrets: the redactor is given them, and the profile's fingerprint leaves them out.
 */
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { HTTP_TOKEN } from '../util/http-token.ts';
import { userinfoPassword } from '../util/url.ts';

/** RFC 9110 token characters. */
const HEADER_NAME = HTTP_TOKEN;

/**
 * Headers the rules set or judge themselves (credentials, content negotiation, MCP sessions,
 * idempotency) or that the transport owns: a profile header there would bend what a rule sends.
 */
export const RESERVED_HEADERS = ['authorization', 'proxy-authorization', 'host', 'content-length', 'transfer-encoding', 'connection', 'content-type', 'accept', 'last-event-id', 'idempotency-key', 'mcp-session-id', 'mcp-protocol-version'] as const;

/** Header names and values as a profile may give them (the receiver's entry shares it). */
export const headerMap = z
  .record(
    z.string().regex(HEADER_NAME, 'a header name is a token (letters, digits, "-")'),
    z.string().min(1).refine((v) => !/[\r\n\0]/.test(v), 'a header value may not hold CR, LF or NUL'),
  )
  .superRefine((headers, ctx) => {
    for (const name of Object.keys(headers)) {
      if ((RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is set by apicert's rules (credentials go in "credentials"); it cannot be a profile header` });
      }
    }
  })
  .transform((headers) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])));

const pemFile = z.string().min(1, 'a path to a PEM file');

/** A private CA and a client certificate (the receiver's entry shares it). */
export const tlsSection = z
  .strictObject({
    /** PEM bundle of a private certificate authority, trusted besides Node's own roots. */
    ca: pemFile.optional(),
    /** Client certificate (PEM) for mutual TLS; needs `key`. */
    cert: pemFile.optional(),
    /** The client certificate's private key (PEM, unencrypted). */
    key: pemFile.optional(),
  })
  .refine((t) => (t.cert === undefined) === (t.key === undefined), 'mutual TLS needs both cert and key (or neither)');

export const networkSection = z.strictObject({
  /** Sent with every request to that surface (/v8, /v1, and the MCP endpoint); the values are never printed. */
  headers: z.strictObject({ v8: headerMap.optional(), v1: headerMap.optional(), mcp: headerMap.optional() }).prefault({}),
  tls: tlsSection.optional(),
  /**
   * Forward proxy for every request (`http://` or `https://`, credentials in the URL allowed).
   * Absent: HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment. `none`: no proxy, whatever the environment says.
   */
  proxy: z.union([z.literal('none'), z.url({ protocol: /^https?$/, error: 'a proxy URL such as http://proxy.example:3128, or "none" to ignore HTTPS_PROXY and HTTP_PROXY' })]).optional(),
  /** Hosts reached without the proxy, comma separated, as NO_PROXY (which it replaces). */
  noProxy: z.string().optional(),
});
export type Network = z.infer<typeof networkSection>;

/** The surface a request path belongs to: /v8 and /v1 at the origin, anything else is the MCP endpoint. */
export function surfaceOfPath(pathname: string): 'v8' | 'v1' | 'mcp' {
  if (/^\/v8(\/|$)/.test(pathname)) return 'v8';
  if (/^\/v1(\/|$)/.test(pathname)) return 'v1';
  return 'mcp';
}

/** The profile headers a request to `url` carries. */
export function headersFor(network: Network | undefined, url: URL): Record<string, string> {
  return network?.headers[surfaceOfPath(url.pathname)] ?? {};
}

/** The password of a URL's userinfo, if any (a proxy's credentials). */
function passwordOf(url: string | undefined): string | undefined {
  return !url || url === 'none' ? undefined : userinfoPassword(url);
}

/** Every secret the network settings hold, labelled for the redactor: header values and the proxy's password. */
export function networkSecrets(network: Network | undefined, env: NodeJS.ProcessEnv = {}): Array<[label: string, value: string]> {
  const out: Array<[string, string]> = [];
  for (const [surface, headers] of Object.entries(network?.headers ?? {})) {
    for (const [name, value] of Object.entries(headers ?? {})) out.push([`header:${surface}:${name}`, value]);
  }
  const proxies = [network?.proxy, env.HTTPS_PROXY, env.https_proxy, env.HTTP_PROXY, env.http_proxy];
  for (const password of proxies.map(passwordOf)) if (password) out.push(['proxy-password', password]);
  return out;
}

/** A proxy URL as it may be printed: without its userinfo. */
export function printableProxy(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return `${parsed.toString().replace(/\/$/, '')} (credentials not shown)`;
  } catch {
    return '(not a URL)';
  }
}

/** What the profile's fingerprint may hold: header names without values, the proxy without credentials. */
export function fingerprintableNetwork(network: Network): unknown {
  const headers = Object.fromEntries(Object.entries(network.headers).map(([surface, h]) => [surface, Object.keys(h ?? {}).sort()]));
  return { ...network, headers, ...(network.proxy ? { proxy: printableProxy(network.proxy) } : {}) };
}

/** File paths in a profile are relative to the profile's folder. */
export function resolveNetworkPaths(network: Network | undefined, folder: string): Network | undefined {
  if (!network?.tls) return network;
  const at = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(folder, p));
  const tls = Object.fromEntries(Object.entries(network.tls).map(([k, v]) => [k, at(v)]));
  return { ...network, tls };
}

export type NetworkSurface = 'v8' | 'v1' | 'mcp';
export const NETWORK_SURFACES: readonly NetworkSurface[] = ['v8', 'v1', 'mcp'];

/** One `--header [SURFACE:]NAME:VALUE` of the command line: a profile header given by hand. */
export interface HeaderFlag {
  /** Absent: every surface. */
  surface?: NetworkSurface;
  name: string;
  value: string;
}

/**
 * Reads `[SURFACE:]NAME:VALUE` and holds it to the profile's own rules (a token name, no CR/LF/NUL,
 * no header apicert's rules set). The message names the header, never its value.
 */
export function parseHeaderFlag(text: string): HeaderFlag | { error: string } {
  const first = text.indexOf(':');
  const head = first < 0 ? '' : text.slice(0, first);
  const twoColons = first >= 0 && text.indexOf(':', first + 1) > 0;
  const surface = (NETWORK_SURFACES as readonly string[]).includes(head.toLowerCase()) && twoColons ? (head.toLowerCase() as NetworkSurface) : undefined;
  // A mistyped surface (v9, MCP2) would otherwise be taken for a header named "v9" sent everywhere,
  // with the intended name inside its value: refused, naming the surface alone.
  if (!surface && twoColons && /^(v\d+|mcp\d*)$/i.test(head.trim())) return { error: `unknown surface "${head.trim()}": use ${NETWORK_SURFACES.join(', ')} (or none, for every surface)` };
  const rest = surface ? text.slice(first + 1) : text;
  const colon = rest.indexOf(':');
  if (colon <= 0) return { error: 'give [SURFACE:]NAME:VALUE, e.g. --header v8:x-waf-token:$WAF_TOKEN (SURFACE is v8, v1 or mcp; none: every surface)' };
  const name = rest.slice(0, colon).trim();
  const value = rest.slice(colon + 1).trim();
  // Not named: what stands before the colon may be part of a value typed in the wrong place.
  if (!HEADER_NAME.test(name)) return { error: 'the header name is not an HTTP token (RFC 9110: letters, digits and !#$%&\'*+-.^_`|~, no spaces): give [SURFACE:]NAME:VALUE' };
  const checked = headerMap.safeParse({ [name]: value });
  if (!checked.success) return { error: `header ${HEADER_NAME.test(name) ? name : '(name)'}: ${checked.error.issues.map((i) => (i.message === 'Too small: expected string to have >=1 characters' ? 'an empty value' : i.message)).join('; ')}` };
  return { ...(surface ? { surface } : {}), name: name.toLowerCase(), value };
}

/** The network settings with the command line's headers added (a flag wins over the profile for the same name). */
export function withHeaderFlags(network: Network | undefined, flags: readonly HeaderFlag[] | undefined): Network | undefined {
  if (!flags?.length) return network;
  const headers: Network['headers'] = { ...(network?.headers ?? {}) };
  for (const flag of flags) {
    for (const surface of flag.surface ? [flag.surface] : NETWORK_SURFACES) headers[surface] = { ...(headers[surface] ?? {}), [flag.name]: flag.value };
  }
  return { ...(network ?? {}), headers };
}
