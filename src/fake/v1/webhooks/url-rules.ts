/**
 * Endpoint URL rules: "public HTTPS on the default port. Rejected: localhost, IP literals, private
 * networks, embedded credentials, unsafe redirect targets." Each class is its own predicate, so a
 * fault can switch off exactly one. The fake never resolves names (it sends nothing off loopback),
 * so "private" hostnames are judged by their suffix; a real service would also check the resolved address.
 */
import type { FakeContext } from '../../context.ts';
import type { FaultId } from '../../faults/index.ts';

export interface UrlClass {
  code: string;
  message: string;
  /** The fault that lets this class through. */
  fault: FaultId;
  matches(url: URL, host: string): boolean;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback']);
const PRIVATE_SUFFIXES = ['.internal', '.local', '.lan', '.home.arpa', '.intranet', '.corp', '.localdomain', '.private'];

function ipv4Private(host: string): boolean {
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

function ipv6Private(host: string): boolean {
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

export const URL_CLASSES: readonly UrlClass[] = [
  { code: 'url_not_https', message: 'The endpoint URL must use https.', fault: 'v1.webhooks.url.https-only/http-accepted', matches: (u) => u.protocol !== 'https:' },
  {
    code: 'url_port_not_default',
    message: 'The endpoint URL must use the default HTTPS port (no explicit port).',
    fault: 'v1.webhooks.url.default-port/other-port-accepted',
    matches: (u) => u.port !== '',
  },
  {
    code: 'url_loopback_name',
    message: 'The endpoint URL must not name localhost or another loopback name.',
    fault: 'v1.webhooks.url.loopback-names/accepted',
    matches: (_u, h) => LOOPBACK_NAMES.has(h) || h.endsWith('.localhost'),
  },
  {
    code: 'url_ip_literal',
    message: 'The endpoint URL must use a DNS name, not an IPv4 literal.',
    fault: 'v1.webhooks.url.ipv4-literal/accepted',
    matches: (_u, h) => IPV4.test(h),
  },
  {
    code: 'url_ip_literal',
    message: 'The endpoint URL must use a DNS name, not an IPv6 literal.',
    fault: 'v1.webhooks.url.ipv6-literal/accepted',
    matches: (_u, h) => h.startsWith('['),
  },
  {
    code: 'url_private_network',
    message: 'The endpoint URL must not point into a private, link-local or internal network.',
    fault: 'v1.webhooks.url.private-network/accepted',
    matches: (_u, h) => ipv4Private(h) || ipv6Private(h) || PRIVATE_SUFFIXES.some((s) => h.endsWith(s)) || (!h.includes('.') && !h.startsWith('[') && !LOOPBACK_NAMES.has(h)),
  },
  {
    code: 'url_embedded_credentials',
    message: 'The endpoint URL must not embed a user name or password.',
    fault: 'v1.webhooks.url.credentials/accepted',
    matches: (u) => u.username !== '' || u.password !== '',
  },
];

/** Why the URL is refused, or undefined when it may be registered. */
export function refuseUrl(fake: FakeContext, raw: string): { code: string; message: string } | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'url_invalid', message: 'The endpoint URL is not an absolute URL.' };
  }
  if (fake.config.webhookAllowedOrigins.includes(url.origin) && url.username === '' && url.password === '') return undefined;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return URL_CLASSES.find((c) => !fake.faults.has(c.fault) && c.matches(url, host));
}

/** Deliveries leave the fake only for the harness receiver's origin: the fake sends nothing off loopback. */
export function deliverable(fake: FakeContext, raw: string): boolean {
  return URL.canParse(raw) && fake.config.webhookAllowedOrigins.includes(new URL(raw).origin);
}
