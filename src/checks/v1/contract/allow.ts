/** A /v1 405 lists the methods of its resource (RFC 9110 15.5.6). */
import { onSurface } from '../../../traffic/read.ts';
import { allowRule } from '../../shared/http-fields.ts';

export const allowOn405 = allowRule({
  id: 'v1.contract.allow-on-405',
  surface: 'v1',
  onSurface: (_j, ex) => onSurface(ex, 'v1'),
  needs: { credentials: ['v1:key'] },
  // GET is a read: a resource that takes only POST is asked for a method it does not support without changing anything.
  async provoke(ctx) {
    await ctx.http.send({ method: 'GET', path: '/v1/execute', credential: ctx.primary('v1'), label: 'GET on the POST-only /v1/execute' });
  },
});
