/** A /v8 401 carries its challenge (RFC 9110 15.5.2): the gateway takes bearer tokens. */
import { onSurface } from '../../../traffic/read.ts';
import { challengeRule } from '../../shared/http-fields.ts';

export const challenge = challengeRule({
  id: 'v8.auth.challenge',
  surface: 'v8',
  onSurface: (_j, ex) => onSurface(ex, 'v8'),
  async provoke(ctx) {
    await ctx.http.send({ method: 'GET', path: '/v8/coverage', credential: null, label: 'coverage without a token' });
  },
});
