/**
 * Events > Webhooks: "Endpoint URL rules: public HTTPS on the default port. Rejected: localhost, IP
 * literals, private networks, embedded credentials, unsafe redirect targets." Each rejected class as
 * its own predicate over the parsed URL, so the fake refuses by them and a judgement of traffic
 * knows which class a registered URL is in.
 *
 * Only what the URL itself shows is classed. A host name leads where it resolves (localtest.me and
 * the nip.io names resolve to loopback and private addresses, metadata.google.internal to a cloud's
 * metadata service on some networks and to nothing on others): a deployment may resolve names at
 * registration and refuse those that reach a private network, or accept them and check the address
 * it connects to at delivery, where a name that changes its answers cannot slip past. So
 * `private-network` holds address literals of private, loopback, link-local and other non-public
 * ranges, and `loopback-names` the names RFC 6761 6.3 makes loopback everywhere (`localhost` and
 * names under `.localhost.`, which "SHOULD always return the IP loopback address" and which the
 * sentence names itself). Names of internal-only namespaces (`internalName`) are classed by neither.
 */

export type UrlClassName = 'https-only' | 'default-port' | 'loopback-names' | 'ipv4-literal' | 'ipv6-literal' | 'private-network' | 'credentials';

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** RFC 6761 6.3: "localhost." and the names under it; other conventional loopback names (ip6-localhost) are names like any other. */
export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost']);
const INTERNAL_SUFFIXES = ['.internal', '.local', '.lan', '.home.arpa', '.intranet', '.corp', '.localdomain', '.private'];

export function ipv4Private(host: string): boolean {
  const m = IPV4.exec(host);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

export function ipv6Private(host: string): boolean {
  if (!host.startsWith('[')) return false;
  const h = host.slice(1, -1).toLowerCase();
  if (h === '::' || h === '::1') return true;
  if (/^f[cd][0-9a-f]{2}:/.test(h) || /^fe[89ab][0-9a-f]:/.test(h)) return true;
  // IPv4-mapped (::ffff:a.b.c.d is normalized to hex by the URL parser).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (mapped) {
    const hi = Number.parseInt(mapped[1]!, 16);
    const lo = Number.parseInt(mapped[2]!, 16);
    return ipv4Private(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return false;
}

const isLoopbackName = (host: string): boolean => LOOPBACK_NAMES.has(host) || host.endsWith('.localhost');
const isLiteral = (host: string): boolean => IPV4.test(host) || host.startsWith('[');

/** Whether a URL (parsed, its host lower-cased without a trailing dot) is of each rejected class. */
export const URL_CLASS_TESTS: Readonly<Record<UrlClassName, (url: URL, host: string) => boolean>> = {
  'https-only': (u) => u.protocol !== 'https:',
  'default-port': (u) => u.port !== '',
  'loopback-names': (_u, h) => isLoopbackName(h),
  'ipv4-literal': (_u, h) => IPV4.test(h),
  'ipv6-literal': (_u, h) => h.startsWith('['),
  // An address literal only: a name's address is known once it is resolved (see above).
  'private-network': (_u, h) => ipv4Private(h) || ipv6Private(h),
  credentials: (u) => u.username !== '' || u.password !== '',
};

/**
 * A host name of an internal-only namespace (reserved or conventional suffixes, or a single label
 * that only a local search domain completes): where it leads is known only by resolving it, so a
 * deployment may refuse it at registration or check its address at delivery. No rule requires either.
 */
export function internalName(host: string): boolean {
  if (isLiteral(host) || isLoopbackName(host)) return false;
  return INTERNAL_SUFFIXES.some((s) => host.endsWith(s)) || !host.includes('.');
}

/** The URL parsed with the host the classes read, or undefined when it is no absolute URL. */
export function parseEndpointUrl(raw: string): { url: URL; host: string } | undefined {
  if (parsedUrls.has(raw)) return parsedUrls.get(raw);
  // Every judgement of a recording reads the same registrations' URLs: parse each once (read-only results).
  if (parsedUrls.size >= PARSED_URLS_KEPT) parsedUrls.clear();
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const parsed = url && { url, host: url.hostname.toLowerCase().replace(/\.$/, '') };
  parsedUrls.set(raw, parsed);
  return parsed;
}

const PARSED_URLS_KEPT = 512;
const parsedUrls = new Map<string, { url: URL; host: string } | undefined>();

/** The rejected classes a URL is in (none: public HTTPS on the default port). */
export function urlClassesOf(raw: string): UrlClassName[] {
  const parsed = parseEndpointUrl(raw);
  if (!parsed) return [];
  return (Object.keys(URL_CLASS_TESTS) as UrlClassName[]).filter((c) => URL_CLASS_TESTS[c](parsed.url, parsed.host));
}

/**
 * A loopback address literal (127.0.0.0/8, [::1], or 127/8 mapped into IPv6, which the URL parser
 * writes as [::ffff:7fxx:xxxx]): where a test receiver listens, which a deployment under test may be
 * configured to allow. Not 0.0.0.0 nor [::]: no receiver is reached at "this host", so no deployment
 * is told to allow it.
 */
export function isLoopbackLiteral(raw: string): boolean {
  const parsed = parseEndpointUrl(raw);
  if (!parsed) return false;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(parsed.host) || parsed.host === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(parsed.host);
}

/** A URL on this machine: its host a loopback address literal or a loopback name (RFC 6761 6.3). */
export function onLoopback(raw: string): boolean {
  const parsed = parseEndpointUrl(raw);
  return parsed !== undefined && (isLoopbackLiteral(raw) || isLoopbackName(parsed.host));
}
