/** Under the variant every /v1 answer to a request without Accept-Encoding leaves gzipped, as a compressing front sends it. */
import type { FakeContext } from '../../context.ts';
import type { RouteRequest } from '../../http.ts';
import { gzipAnswer } from '../../support/compress.ts';

/**
 * RFC 9110 §12.5.3: "A request without any Accept-Encoding header field implies that the user agent
 * has no preferences regarding content-codings. Although this allows the server to use any content
 * coding in a response, it does not imply that the user agent will be able to correctly process all
 * encodings." A request that names its codings gets identity, which every Accept-Encoding admits.
 */
export function gzipAnswers(fake: FakeContext, r: RouteRequest): void {
  if (!fake.variants.has('v1.contract/gzip-answers')) return;
  // The coding chosen varies with Accept-Encoding (RFC 9110 §12.5.5): every answer says so.
  if (r.header('accept-encoding') === undefined) gzipAnswer(r.res);
  else r.res.setHeader('vary', 'Accept-Encoding');
}
