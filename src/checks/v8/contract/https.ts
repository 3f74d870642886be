/**
 * What the service does: "Every request must use HTTPS. HTTP origins are rejected." The sentence
 * names no header, so it has two readings, and a deployment may take either:
 * - the header reading: a request carrying `Origin: http://…` is refused;
 * - the transport reading: the `http://` origins (RFC 6454: scheme, host, port) requests are sent
 *   to are refused, i.e. the API is not served over plain HTTP.
 * A deployment that refuses an http:// Origin where the same request without it is served has taken
 * the header reading, and is held to it on every request. One that serves such requests has taken
 * the transport reading, judged on plain-HTTP exchanges to the host of an https:// target: never a
 * 2xx of the API (refused, closed or redirected are all rejections). Otherwise nothing is judged.
 */
import { section, type Exchange, type Judge } from '../../../rule/index.ts';
import { onSurface } from '../../../traffic/read.ts';
import { capabilitySearchBody, holder, PATHS } from '../support/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:coverage:read', 'v8:holding:capabilities:read'] } });

const HTTP_ORIGIN = 'http://apicert-origin.example';

const fromHttpOrigin = (ex: Exchange): boolean => ex.requestHeaders.origin?.toLowerCase().startsWith('http://') === true;
const refused = (status: number): boolean => status >= 400 && status < 500 && status !== 429;
const served = (status: number): boolean => status >= 200 && status < 300;
const operationOf = (ex: Exchange): string => `${ex.method} ${ex.path.split('?', 1)[0]}`;

/** The operations where the journal shows the header reading: an http:// Origin refused where the same operation without one was served. */
function headerReadingShown(exchanges: readonly Exchange[]): string[] {
  const servedPlain = new Set<string>();
  const refusedOrigin = new Set<string>();
  for (const ex of exchanges) {
    if (!onSurface(ex, 'v8') || ex.status === undefined) continue;
    if (fromHttpOrigin(ex) && refused(ex.status)) refusedOrigin.add(operationOf(ex));
    else if (!fromHttpOrigin(ex) && served(ex.status)) servedPlain.add(operationOf(ex));
  }
  return [...refusedOrigin].filter((op) => servedPlain.has(op));
}

/** A /v8 exchange sent over plain http:// to the host of the profile's https:// target: the transport reading's case. */
function plainToHttpsTarget(j: Judge, ex: Exchange): boolean {
  const target = j.profile?.target;
  if (target === undefined || !onSurface(ex, 'v8')) return false;
  const host = httpsHostOf(target);
  if (host === undefined) return false;
  try {
    const u = new URL(ex.url);
    return u.protocol === 'http:' && u.hostname === host;
  } catch {
    return false;
  }
}

/** The host of an https:// target, else undefined; parsed once per target, not once per exchange. */
const httpsHosts = new Map<string, string | undefined>();
function httpsHostOf(target: string): string | undefined {
  if (httpsHosts.has(target)) return httpsHosts.get(target);
  let host: string | undefined;
  try {
    const t = new URL(target);
    host = t.protocol === 'https:' ? t.hostname : undefined;
  } catch {
    host = undefined;
  }
  httpsHosts.set(target, host);
  return host;
}

export const httpOrigin = rule({
  id: 'v8.contract.http-origin',
  title: 'HTTP origins are rejected: under the reading the deployment took (an http:// Origin header, or plain HTTP)',
  level: 'required',
  spec: { section: 'What the service does', quote: 'Every request must use HTTPS. HTTP origins are rejected.' },
  judgement: {
    record: 'a /v8 request carrying an Origin header of an http:// origin, or sent over plain http:// to an https:// target',
    none: 'no request showed the header reading of "HTTP origins are rejected" (an http:// Origin refused where the same request without one was served): a deployment that serves such requests took the other reading, the http:// origins requests are sent to, and no plain http:// request to an https:// target was recorded to judge that by (apicert\'s client speaks the target\'s scheme: record such traffic with apicert proxy and judge-traffic)',
    judge(j) {
      const shown = headerReadingShown(j.exchanges);
      const originStatuses: number[] = [];
      for (const ex of j.exchanges) {
        if (ex.status !== undefined && onSurface(ex, 'v8') && fromHttpOrigin(ex)) originStatuses.push(ex.status);
        // The transport reading: a plain-HTTP request to an https:// target's host is never served the API (refused, closed or redirected).
        if (plainToHttpsTarget(j, ex)) {
          j.check(ex, ex.status === undefined || !served(ex.status), `${ex.url.split('?', 1)[0]} over plain HTTP answered ${ex.status}: the API is served to an http:// origin, expected a refusal or a redirect to https`);
          continue;
        }
        // The header reading, where the deployment shows it took it: then every request from such an origin is refused.
        if (shown.length === 0 || ex.status === undefined || !onSurface(ex, 'v8') || !fromHttpOrigin(ex) || ex.status === 429) continue;
        j.check(ex, refused(ex.status), `a request with Origin: ${ex.requestHeaders.origin} answered ${ex.status}, while ${shown[0]} refuses that origin: HTTP origins are rejected on every request, expected a 4xx`);
      }
      if (originStatuses.length > 0) {
        j.observe('status of a request from an http:// Origin', [...new Set(originStatuses)], shown.length > 0 ? 'refused: the header reading of "HTTP origins are rejected"' : 'served: the deployment reads "HTTP origins" as the origins requests are sent to, not an Origin header');
      }
    },
  },
  async provoke(ctx) {
    const coverage = holder(ctx, 'coverage:read');
    // The same request without an Origin first: whether a refusal of the Origin is the header reading, and the evidence beside it.
    await ctx.http.send({ method: 'GET', path: PATHS.coverage, credential: coverage, label: 'coverage without an Origin' });
    await ctx.http.send({ method: 'GET', path: PATHS.coverage, credential: coverage, headers: { origin: HTTP_ORIGIN }, label: 'coverage from an http:// Origin' });
    await ctx.http.send({ method: 'POST', path: PATHS.capabilities, credential: holder(ctx, 'capabilities:read'), json: capabilitySearchBody(ctx), headers: { origin: HTTP_ORIGIN }, label: 'capability search from an http:// Origin' });
  },
});
