/** What the service does: every request must use HTTPS, and a request from an HTTP origin is rejected. */
import { section } from '../../../rule/index.ts';
import { capabilitySearchBody, holder, PATHS } from '../support/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:coverage:read', 'v8:holding:capabilities:read'] } });

const HTTP_ORIGIN = 'http://apicert-origin.example';

export const httpOrigin = rule({
  id: 'v8.contract.http-origin',
  title: 'A request from an http:// Origin is rejected (4xx), while the same request without an Origin is served',
  level: 'required',
  spec: { section: 'What the service does', quote: 'Every request must use HTTPS. HTTP origins are rejected.' },
  async check(ctx) {
    const coverage = holder(ctx, 'coverage:read');
    const control = await ctx.http.send({ method: 'GET', path: PATHS.coverage, credential: coverage, label: 'coverage without an Origin' });
    ctx.expect(control.status === 200, `GET ${PATHS.coverage} without an Origin answered ${control.status}, expected 200`);
    const fromHttp = await ctx.http.send({ method: 'GET', path: PATHS.coverage, credential: coverage, headers: { origin: HTTP_ORIGIN }, label: 'coverage from an http:// Origin' });
    ctx.check(fromHttp.status >= 400 && fromHttp.status < 500, `GET ${PATHS.coverage} with Origin: ${HTTP_ORIGIN} answered ${fromHttp.status}, expected a 4xx rejection`);
    const search = await ctx.http.send({ method: 'POST', path: PATHS.capabilities, credential: holder(ctx, 'capabilities:read'), json: capabilitySearchBody(ctx), headers: { origin: HTTP_ORIGIN }, label: 'capability search from an http:// Origin' });
    ctx.check(search.status >= 400 && search.status < 500, `POST ${PATHS.capabilities} with Origin: ${HTTP_ORIGIN} answered ${search.status}, expected a 4xx rejection`);
    ctx.observe('status of an http:// Origin rejection', [fromHttp.status, search.status], 'the seed names no status for it');
  },
});
