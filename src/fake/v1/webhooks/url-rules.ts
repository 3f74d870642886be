/**
 * Endpoint URL rules: "public HTTPS on the default port. Rejected: localhost, IP literals, private
 * networks, embedded credentials, unsafe redirect targets." Each class is its own predicate, so a
 * fault can switch off exactly one. The fake never resolves names (it sends nothing off loopback),
 * so by default it refuses names of internal-only namespaces by their suffix at registration; under
 * `v1.webhooks/names-checked-at-delivery` it accepts them, as a deployment does that checks the
 * address it resolves when it delivers (the fake delivers only to the harness receiver).
 */
import { internalName, isLoopbackLiteral, URL_CLASS_TESTS } from '../../../contract/v1/webhook-url.ts';
import type { FakeContext } from '../../context.ts';
import type { FaultId } from '../../faults/index.ts';

export interface UrlClass {
  code: string;
  message: string;
  /** The fault that lets this class through. */
  fault: FaultId;
  matches(url: URL, host: string): boolean;
  /** A class of names (not of what the URL shows): a deployment may leave it to delivery time. */
  byName?: true;
}

export const URL_CLASSES: readonly UrlClass[] = [
  { code: 'url_not_https', message: 'The endpoint URL must use https.', fault: 'v1.webhooks.url.https-only/http-accepted', matches: URL_CLASS_TESTS['https-only'] },
  {
    code: 'url_port_not_default',
    message: 'The endpoint URL must use the default HTTPS port (no explicit port).',
    fault: 'v1.webhooks.url.default-port/other-port-accepted',
    matches: URL_CLASS_TESTS['default-port'],
  },
  {
    code: 'url_loopback_name',
    message: 'The endpoint URL must not name localhost or another loopback name.',
    fault: 'v1.webhooks.url.loopback-names/accepted',
    matches: URL_CLASS_TESTS['loopback-names'],
  },
  {
    code: 'url_ip_literal',
    message: 'The endpoint URL must use a DNS name, not an IPv4 literal.',
    fault: 'v1.webhooks.url.ipv4-literal/accepted',
    matches: URL_CLASS_TESTS['ipv4-literal'],
  },
  {
    code: 'url_ip_literal',
    message: 'The endpoint URL must use a DNS name, not an IPv6 literal.',
    fault: 'v1.webhooks.url.ipv6-literal/accepted',
    matches: URL_CLASS_TESTS['ipv6-literal'],
  },
  {
    code: 'url_private_network',
    message: 'The endpoint URL must not point into a private, link-local or internal network.',
    fault: 'v1.webhooks.url.private-network/accepted',
    matches: URL_CLASS_TESTS['private-network'],
  },
  {
    code: 'url_private_network',
    message: 'The endpoint URL names a host of an internal-only namespace.',
    fault: 'v1.webhooks.url.private-network/accepted',
    matches: (_u, host) => internalName(host),
    byName: true,
  },
  {
    code: 'url_embedded_credentials',
    message: 'The endpoint URL must not embed a user name or password.',
    fault: 'v1.webhooks.url.credentials/accepted',
    matches: URL_CLASS_TESTS.credentials,
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
  // The fault lets private hosts through, address literals too (which the literal classes would refuse anyway).
  const privateLetThrough = fake.faults.has('v1.webhooks.url.private-network/accepted') && URL_CLASS_TESTS['private-network'](url, host);
  // A loopback literal is refused like any private address unless it is the receiver's origin (allowed above), also
  // on loopback; the fault lets every loopback literal through, though the receiver the profile names is public (embedded.ts).
  const loopbackLetThrough = fake.faults.has('v1.webhooks.url.private-network/loopback-accepted') && isLoopbackLiteral(raw);
  return URL_CLASSES.find((c) => {
    if (fake.faults.has(c.fault) || !c.matches(url, host)) return false;
    if (loopbackLetThrough && c.matches === URL_CLASS_TESTS['private-network']) return false;
    if ((privateLetThrough || loopbackLetThrough) && (c.matches === URL_CLASS_TESTS['ipv4-literal'] || c.matches === URL_CLASS_TESTS['ipv6-literal'])) return false;
    return !(c.byName && fake.variants.has('v1.webhooks/names-checked-at-delivery'));
  });
}

/** Deliveries leave the fake only for the harness receiver's origin: the fake sends nothing off loopback. */
export function deliverable(fake: FakeContext, raw: string): boolean {
  return URL.canParse(raw) && fake.config.webhookAllowedOrigins.includes(new URL(raw).origin);
}

/** Where a delivery to `raw` goes: under a public receiver URL the profile names, the loopback origin it forwards to (FakeConfig.webhookForwards). */
export function forwarded(fake: FakeContext, raw: string): string {
  for (const [prefix, origin] of Object.entries(fake.config.webhookForwards)) {
    if (raw === prefix || raw.startsWith(`${prefix}/`)) return `${origin}${raw.slice(prefix.length)}`;
  }
  return raw;
}
