/** An MCP 401 carries its challenge (RFC 9110 15.5.2); a server that asks for no token leaves nothing to judge. */
import { pathOnly } from '../../../rule/index.ts';
import { challengeRule } from '../../shared/http-fields.ts';
import { stopIfLimited } from '../support/limiter.ts';
import { mcpEndpoint } from '../support/traffic.ts';
import { sendInitialize } from '../support/session.ts';

export const challenge = challengeRule({
  id: 'mcp.auth.challenge',
  surface: 'mcp',
  onSurface: (j, ex) => pathOnly(ex) === mcpEndpoint(j),
  async provoke(ctx) {
    const reply = await sendInitialize(ctx, { credential: null, label: 'initialize without a token' });
    // The one answer this rule is shown: refused by the limiter, it shows no 401 nor its absence.
    stopIfLimited(ctx, reply.res, 'initialize without a token');
  },
});
