/**
 * Sensitive values are redacted before any response leaves the gateway, /mcp's included: no answer
 * of the MCP endpoint may carry one of the run's own secrets (a token echoed in a 401 message or in
 * an InitializeResult, say). v8.redaction.run-secrets judges /v8's answers by the same judgement;
 * this one needs only an mcp credential, so an MCP server certified alone is judged too.
 */
import { pathOnly, section } from '../../../rule/index.ts';
import { resolveRole, roleName } from '../../../profile/roles.ts';
import { judgeEchoedSecretsWhere } from '../../../traffic/secrets.ts';
import { caller, deleteSession, postRaw, sendInitialize } from '../support/session.ts';
import { mcpEndpoint } from '../support/traffic.ts';

const rule = section({ surface: 'mcp', document: 'v8-integration-gateway.md', needs: { credentials: ['mcp:primary'] } });

export const mcpRunSecrets = rule({
  id: 'mcp.redaction.run-secrets',
  title: "No answer of the MCP endpoint carries one of the run's own secrets (its tokens), judged over every exchange of the run",
  level: 'required',
  judgesTheRun: true,
  spec: {
    section: 'What the service does',
    quote: 'Sensitive values are redacted before any response leaves the gateway.',
  },
  judgement: {
    record: "answered requests to the MCP endpoint (the run's exchanges, or a recording's)",
    judge(j) {
      const endpoint = mcpEndpoint(j);
      judgeEchoedSecretsWhere(j, (ex) => pathOnly(ex) === endpoint);
    },
  },
  async provoke(ctx) {
    // Its own provocations, so the rule judges something even when run alone: refusals are where a
    // server most often echoes what it was sent, and an InitializeResult is where it names itself.
    // The judgement reads every exchange of the run.
    const primary = caller(ctx);
    const reply = await sendInitialize(ctx, { label: 'initialize (its result may name the caller)' });
    await deleteSession(ctx, reply.sessionId, primary);
    await postRaw(ctx, '{"jsonrpc":"2.0","id":1,"method":', { label: 'malformed JSON-RPC (may echo the request)', credential: primary });
    const expired = resolveRole(ctx.profile, roleName('mcp', 'expired')).credential;
    if (expired) await sendInitialize(ctx, { credential: expired, label: 'initialize with the expired token' });
  },
});
