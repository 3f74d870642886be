/** A /v1 401 carries its challenge (RFC 9110 15.5.2): the API key is an HTTP bearer credential. */
import { onSurface } from '../../../traffic/read.ts';
import { challengeRule } from '../../shared/http-fields.ts';

export const challenge = challengeRule({
  id: 'v1.auth.challenge',
  surface: 'v1',
  onSurface: (_j, ex) => onSurface(ex, 'v1'),
  async provoke(ctx) {
    await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: null, label: 'usage without an API key' });
  },
});
