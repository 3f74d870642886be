/** A /v8 405 lists the methods of its resource (RFC 9110 15.5.6). */
import { onSurface } from '../../../traffic/read.ts';
import { allowRule } from '../../shared/http-fields.ts';

export const allowOn405 = allowRule({
  id: 'v8.contract.allow-on-405',
  surface: 'v8',
  onSurface: (_j, ex) => onSurface(ex, 'v8'),
  needs: { credentials: ['v8:primary'] },
  // GET is a read: a resource that takes only POST is asked for a method it does not support without changing anything.
  async provoke(ctx) {
    await ctx.http.send({ method: 'GET', path: '/v8/missions', credential: ctx.primary('v8'), label: 'GET on the POST-only /v8/missions' });
  },
});
