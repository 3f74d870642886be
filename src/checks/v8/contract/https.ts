/** What the service does: every request must use HTTPS, and a request from an HTTP origin is rejected. */
import { section } from '../../../rule/index.ts';
import { onSurface } from '../../../traffic/read.ts';
import { capabilitySearchBody, holder, PATHS } from '../support/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:coverage:read', 'v8:holding:capabilities:read'] } });

const HTTP_ORIGIN = 'http://apicert-origin.example';

export const httpOrigin = rule({
  id: 'v8.contract.http-origin',
  title: 'A request from an http:// Origin is rejected (4xx)',
  level: 'required',
  spec: { section: 'What the service does', quote: 'Every request must use HTTPS. HTTP origins are rejected.' },
  judgement: {
    record: 'a /v8 request carrying an Origin header of an http:// origin',
    judge(j) {
      const statuses: number[] = [];
      for (const ex of j.exchanges) {
        // Every request from such an origin, whoever sends it and whatever it asks: "HTTP origins are rejected".
        if (!onSurface(ex, 'v8') || ex.status === undefined || !ex.requestHeaders.origin?.toLowerCase().startsWith('http://')) continue;
        statuses.push(ex.status);
        j.check(ex, ex.status >= 400 && ex.status < 500, `a request with Origin: ${ex.requestHeaders.origin} answered ${ex.status}, expected a 4xx rejection`);
      }
      if (statuses.length > 0) j.observe('status of an http:// Origin rejection', [...new Set(statuses)], 'the seed names no status for it');
    },
  },
  async provoke(ctx) {
    const coverage = holder(ctx, 'coverage:read');
    // The same request without an Origin first: what the target serves, for the evidence beside the rejection.
    await ctx.http.send({ method: 'GET', path: PATHS.coverage, credential: coverage, label: 'coverage without an Origin' });
    await ctx.http.send({ method: 'GET', path: PATHS.coverage, credential: coverage, headers: { origin: HTTP_ORIGIN }, label: 'coverage from an http:// Origin' });
    await ctx.http.send({ method: 'POST', path: PATHS.capabilities, credential: holder(ctx, 'capabilities:read'), json: capabilitySearchBody(ctx), headers: { origin: HTTP_ORIGIN }, label: 'capability search from an http:// Origin' });
  },
});
