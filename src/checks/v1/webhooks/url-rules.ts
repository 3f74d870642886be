/** Events > Webhooks: "Endpoint URL rules: public HTTPS on the default port. Rejected: ..." One rule per rejected class. */
import fc from 'fast-check';
import { type CheckContext, type Exchange, section, type Rule } from '../../../rule/index.ts';
import { urlClassesOf, type UrlClassName } from '../../../contract/v1/webhook-url.ts';
import type { Profile } from '../../../profile/schema.ts';
import { journalFact } from '../../../traffic/read.ts';
import { registrationsOf, RoomRefusals, testReceiverUrl } from '../support/traffic.ts';
import { needRoom, receiverOf, recordDeliveries, refused, registerWebhook, ofRun } from './support.ts';
import { sharedHook, startAnswered, urlControl } from './shared.ts';
import { setupSent } from '../support/limiter.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:registrar'] } });

const SECTION = 'Events > Webhooks';
const RULES_SENTENCE = 'Endpoint URL rules: public HTTPS on the default port.';

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/);
const path = fc.stringMatching(/^[a-z0-9]{1,12}$/).map((p) => `/apicert/${p}`);
/** Public DNS names under the reserved example domains: valid hosts nobody answers. */
const publicHost = fc.tuple(label, fc.constantFrom('example.com', 'example.net', 'example.org')).map(([l, d]) => `${l}.${d}`);

const PUBLIC_FIRST_OCTETS = [1, 8, 23, 34, 45, 52, 64, 93, 104, 128, 151, 185, 203, 216] as const;
const octet = fc.integer({ min: 0, max: 255 });
const publicIpv4 = fc.tuple(fc.constantFrom(...PUBLIC_FIRST_OCTETS), octet, octet, fc.integer({ min: 1, max: 254 }));
const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));

/** The same public address written as the URL parser also reads it: dotted, one integer, hex parts. */
const ipv4Spellings = publicIpv4.chain(([a, b, c, d]) =>
  fc.constantFrom(`${a}.${b}.${c}.${d}`, String(((a << 24) >>> 0) + (b << 16) + (c << 8) + d), `0x${a.toString(16)}.${b}.${c}.${d}`),
);

const privateIpv4 = fc.oneof(
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
  // "This network" (0.0.0.0/8; 0.0.0.0 itself reaches the sender's own machine) is never a receiver's address: judged in every run.
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `0.${b}.${c}.${d}`),
  fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
  fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => `100.${b}.${c}.${d}`),
);

const privateIpv6 = fc.oneof(
  fc.tuple(fc.constantFrom('fc', 'fd'), fc.integer({ min: 0, max: 255 }), hex16).map(([p, n, h]) => `[${p}${n.toString(16).padStart(2, '0')}::${h}]`),
  hex16.map((h) => `[fe80::${h}]`),
  privateIpv4.map((v4) => `[::ffff:${v4}]`),
  fc.constant('[::]'),
);

/**
 * Loopback literals, in the spellings the URL parser reads. apicert's own receiver listens on loopback
 * when the profile names no receiver (or names one there), and a deployment under test may have been
 * told to allow it: such URLs are then not judged (testReceiverUrl), and sending them would only leave
 * endpoints behind. So they are sent where the profile names a receiver elsewhere, which is when they are judged.
 */
const loopbackIpv4 = fc.tuple(octet, octet, fc.integer({ min: 1, max: 254 })).map(([b, c, d]) => `127.${b}.${c}.${d}`);
const loopbackHost = fc.oneof(loopbackIpv4, loopbackIpv4.map((v4) => `[::ffff:${v4}]`), fc.constantFrom('[::1]', '[0:0:0:0:0:0:0:1]', '2130706433', '0x7f.1'));

interface UrlClassRule {
  id: string;
  /** The rejected class the rule's sentence names (src/contract/v1/webhook-url.ts). */
  urlClass: UrlClassName;
  title: string;
  quote: string;
  urls: fc.Arbitrary<string>;
  examples: string[];
  /** URLs of the class where a test receiver may listen: sent only where they are judged (`testReceiverUrl` holds for none). */
  receiverLike?: { urls: fc.Arbitrary<string>; examples: string[] };
  /**
   * URLs whose class only resolving their name tells: registered and their answers recorded, never
   * judged (a deployment may refuse them at registration or check the address at delivery).
   */
  names?: readonly string[];
}

/** Rejected, in the sense of a client error about the request itself (not auth, not rate limiting). */
const REFUSED_ANSWER = '4xx other than 401, 403, 404, 405 and 429';

/**
 * The registrations (`registrations`) of URLs no test receiver listens at, each with the URL's
 * rejected classes: once per journal and profile for the seven URL rules (journalFact), each of
 * which would otherwise parse every URL again.
 */
function classedRegistrations(exchanges: readonly Exchange[], profile: Profile | undefined): ReadonlyArray<{ ex: Exchange; url: string; classes: readonly UrlClassName[] }> {
  const out: Array<{ ex: Exchange; url: string; classes: readonly UrlClassName[] }> = [];
  for (const [ex, url] of journalFact(exchanges, registrationsOf, profile)) {
    if (!testReceiverUrl({ profile }, url)) out.push({ ex, url, classes: urlClassesOf(url) });
  }
  return out;
}

function urlClassRule(spec: UrlClassRule): Rule {
  return rule({
    id: spec.id,
    title: spec.title,
    level: 'required',
    spec: { section: SECTION, quote: spec.quote },
    judgement: {
      record: `a POST /v1/webhooks registering a URL of the class (${spec.urlClass}), by a caller the deployment admits`,
      judge(j) {
        let judged = false;
        const room = new RoomRefusals();
        for (const { ex, url, classes } of journalFact(j.exchanges, classedRegistrations, j.profile)) {
          if (!classes.includes(spec.urlClass)) continue;
          // A refusal for room (a cap the description leaves open: 403 entitlement_failed) is not one for the URL's
          // class, nor its acceptance: not judged. Every refusal that passed before still passes (a 409 among them).
          if (!refused(ex.status!) && room.passOver(ex)) continue;
          judged = true;
          j.check(ex, refused(ex.status!), `registering ${url} answered ${ex.status}, expected a refusal (${REFUSED_ANSWER})`);
        }
        room.settle(j, judged);
      },
    },
    async provoke(ctx: CheckContext) {
      // The control: a public https URL on the default port is accepted, so refusals below are about the class (one per run).
      const control = await setupSent(ctx, 'the control registration (a public https URL on the default port)', () => urlControl(ctx));
      needRoom(ctx, control);
      if (control.status !== 201) ctx.inconclusive(`setup failed: a public https URL on the default port answered ${control.status}, not 201`);
      const receiverLike = spec.receiverLike?.examples.every((url) => !testReceiverUrl(ctx, url)) ? spec.receiverLike : undefined;
      await ctx.property(
        receiverLike ? fc.oneof(spec.urls, receiverLike.urls) : spec.urls,
        async (url) => {
          await registerWebhook(ctx, { url }, `register ${url}`);
        },
        { numRuns: 12, examples: [...spec.examples, ...(receiverLike?.examples ?? [])] },
      );
      for (const url of spec.names ?? []) {
        const res = await registerWebhook(ctx, { url }, `register ${url} (a name: recorded, not judged)`);
        ctx.observe(`registering ${url}`, res.status, 'a name leads where it resolves: refused at registration, or accepted and its address checked at delivery');
      }
    },
  });
}

export const httpsOnly = urlClassRule({
  id: 'v1.webhooks.url.https-only',
  urlClass: 'https-only',
  title: 'Endpoint URLs that are not https are refused',
  quote: `${RULES_SENTENCE} … \`url\` (string, HTTPS, required)`,
  urls: fc.tuple(fc.constantFrom('http', 'HTTP', 'ws', 'ftp'), publicHost, path).map(([s, h, p]) => `${s}://${h}${p}`),
  examples: ['http://hooks.example.com/apicert/plain'],
});

export const defaultPort = urlClassRule({
  id: 'v1.webhooks.url.default-port',
  urlClass: 'default-port',
  title: 'https URLs with an explicit port other than 443 are refused',
  quote: RULES_SENTENCE,
  urls: fc
    .tuple(publicHost, fc.integer({ min: 1, max: 65535 }).filter((p) => p !== 443), path)
    .map(([h, port, p]) => `https://${h}:${port}${p}`),
  examples: ['https://hooks.example.com:8443/apicert/port', 'https://hooks.example.com:80/apicert/port', 'https://hooks.example.com:444/apicert/port'],
});

export const loopbackNames = urlClassRule({
  id: 'v1.webhooks.url.loopback-names',
  urlClass: 'loopback-names',
  title: 'localhost and the names under .localhost (loopback by RFC 6761 6.3) are refused',
  quote: 'Rejected: localhost',
  urls: fc.oneof(
    fc.tuple(fc.constantFrom('localhost', 'LOCALHOST', 'localhost.', 'LocalHost'), path).map(([h, p]) => `https://${h}${p}`),
    fc.tuple(label, path).map(([l, p]) => `https://${l}.localhost${p}`),
  ),
  examples: ['https://localhost/apicert/hook', 'https://api.localhost/apicert/hook'],
});

export const ipv4Literal = urlClassRule({
  id: 'v1.webhooks.url.ipv4-literal',
  urlClass: 'ipv4-literal',
  title: 'Public IPv4 literals, in any spelling the URL parser accepts, are refused',
  quote: 'Rejected: localhost, IP literals',
  urls: fc.tuple(ipv4Spellings, path).map(([h, p]) => `https://${h}${p}`),
  examples: ['https://93.184.215.14/apicert/hook', 'https://1572395022/apicert/hook'],
});

export const ipv6Literal = urlClassRule({
  id: 'v1.webhooks.url.ipv6-literal',
  urlClass: 'ipv6-literal',
  title: 'Public IPv6 literals are refused',
  quote: 'Rejected: localhost, IP literals',
  urls: fc
    .tuple(fc.integer({ min: 0x2001, max: 0x2a0f }), hex16, hex16, path)
    .map(([a, b, c, p]) => `https://[${a.toString(16)}:${b}::${c}]${p}`),
  examples: ['https://[2606:4700:4700::1111]/apicert/hook', 'https://[2001:4860:4860::8888]/apicert/hook'],
});

export const privateNetwork = urlClassRule({
  id: 'v1.webhooks.url.private-network',
  urlClass: 'private-network',
  title: 'Hosts written as private, loopback or link-local addresses are refused (names are judged where they resolve: not here)',
  quote: 'Rejected: localhost, IP literals, private networks',
  urls: fc.tuple(fc.oneof(privateIpv4, privateIpv6), path).map(([h, p]) => `https://${h}${p}`),
  examples: ['https://10.0.0.1/apicert/hook', 'https://169.254.169.254/latest/meta-data/', 'https://[fd00::1]/apicert/hook', 'https://[::ffff:192.168.1.1]/apicert/hook', 'https://0.0.0.0/apicert/hook', 'https://[::]/apicert/hook'],
  receiverLike: {
    urls: fc.tuple(loopbackHost, path).map(([h, p]) => `https://${h}${p}`),
    examples: ['https://127.0.0.1/apicert/hook', 'https://[::1]/apicert/hook', 'https://127.10.20.30/apicert/hook', 'https://[::ffff:127.0.0.1]/apicert/hook'],
  },
  names: ['https://metadata.google.internal/computeMetadata/v1/', 'https://printer.local/apicert/hook', 'https://hooks.corp/apicert/hook', 'https://intranet/apicert/hook'],
});

export const embeddedCredentials = urlClassRule({
  id: 'v1.webhooks.url.credentials',
  urlClass: 'credentials',
  title: 'URLs with an embedded user name or password are refused',
  quote: 'Rejected: localhost, IP literals, private networks, embedded credentials',
  urls: fc
    .tuple(label, fc.option(label, { nil: undefined }), publicHost, path)
    .map(([user, pass, h, p]) => `https://${user}${pass === undefined ? '' : `:${pass}`}@${h}${p}`),
  examples: ['https://user:pass@hooks.example.com/apicert/hook', 'https://:secret@hooks.example.com/apicert/hook'],
});

export const unsafeRedirect = rule({
  id: 'v1.webhooks.url.redirect',
  title: 'A delivery answered with a redirect to an unsafe (plain http) target is not followed',
  level: 'required',
  needs: { fixtures: ['webhooks.runs.completes'], receiver: true },
  activeOnly: 'only a receiver that answers a delivery with a redirect to a trap it also watches shows whether the sender follows it',
  spec: { section: SECTION, quote: 'Rejected: localhost, IP literals, private networks, embedded credentials, unsafe redirect targets.' },
  async check(ctx: CheckContext) {
    receiverOf(ctx);
    const hook = await sharedHook(ctx);
    const trapUrl = hook.endpoint.trapUrl;
    // The shared endpoint redirects the first attempt of each event of this rule's run, and answers its retries as usual:
    // a sender that follows a redirect does so on the first, and the endpoint fails no more than the retry rule makes it.
    const runId = await startAnswered(ctx, hook.endpoint, 'completes', (d) => (d.attempt === 1 ? { status: 307, headers: { location: trapUrl } } : undefined));
    const timeout = ctx.profile.fixtures.webhooks.deliveryTimeoutMs;
    const reached = await hook.endpoint.waitFor((ds) => ofRun(ds, runId).some((d) => d.answered === 307), timeout);
    if (!reached) ctx.untestable({ need: 'receiver', remedy: `no delivery for run ${runId} reached it within ${timeout} ms, so no redirect could be offered` });
    // A sender that follows redirects does so right away; one second is plenty on top of the first answer.
    await ctx.sleep(1_000);
    recordDeliveries(ctx, hook.endpoint, ofRun(hook.endpoint.deliveries, runId));
    // Only this rule's run is answered with a redirect, so every request at the shared endpoint's trap is its own.
    const hits = hook.endpoint.trapHits;
    recordDeliveries(ctx, hook.endpoint, hits, 'request that reached the redirect target');
    ctx.expect(hits.length === 0, `the sender followed a 307 to ${trapUrl} (plain http, not the registered endpoint) ${hits.length} time(s)`);
  },
});
