import { z } from 'zod';
import { mcpFixtures } from './fixtures/mcp.ts';
import { v1Fixtures } from './fixtures/v1.ts';
import { v8Fixtures } from './fixtures/v8.ts';
import { webhooksFixtures } from './fixtures/webhooks.ts';
import { networkSection } from './network.ts';
import { receiverSection } from './receiver.ts';
import { carriesUserinfo } from '../util/url.ts';

export type { MissionRequest } from './fixtures/v8.ts';

/** Every scope the /v8 gateway documents for its endpoints. */
export const V8_SCOPES = [
  'missions:write',
  'missions:read',
  'memory:read',
  'capabilities:read',
  'traces:read',
  'skills:read',
  'context:read',
  'world:read',
  'coverage:read',
] as const;

export const credentialSchema = z.strictObject({
  /** A name the report uses instead of the token. */
  name: z.string().min(1),
  /** The bearer token; `${ENV_VAR}` is expanded when the profile loads and the value is never printed. */
  token: z.string().min(1),
  surfaces: z.array(z.enum(['v8', 'v1', 'mcp'])).default(['v8']),
  /** The scopes the token holds; checks pick credentials by what they hold and lack. */
  scopes: z.array(z.string()).default([]),
  /** Tokens with the same principal label belong to the same caller. */
  principal: z.string().default('primary'),
  tenant: z.string().optional(),
  expired: z.boolean().default(false),
});
export type Credential = z.infer<typeof credentialSchema>;

export const profileSchema = z.strictObject({
  /**
   * Base URL of the deployment. /v8 and /v1 live at its origin, as the seeds show them; a path,
   * when given, is where the MCP endpoint is mounted (else `/mcp`, or fixtures.mcp.endpoint).
   */
  // Credentials in the URL would be printed wherever the target is (reports, rerun lines): they go in credentials and network.headers.
  // A query or fragment is refused for the same reason (`?api_key=...`), and no request would carry it anyway.
  target: z
    .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'target is required: the base URL of the deployment, e.g. https://gateway.example.com' : 'not an http:// or https:// URL (only http and https are taken): give the base URL of the deployment, e.g. https://gateway.example.com') })
    .refine((url) => !carriesUserinfo(url), 'the target URL carries no credentials (user:password@host): give tokens under credentials, other headers under network.headers')
    .refine((url) => !/[?#]/.test(url), 'the target URL carries no query or fragment (?... or #..., not shown: it may hold a key): give the base URL alone, tokens under credentials, other headers under network.headers'),
  credentials: z.array(credentialSchema).default([]),
  fixtures: z
    .strictObject({
      v8: v8Fixtures,
      v1: v1Fixtures,
      webhooks: webhooksFixtures,
      mcp: mcpFixtures,
    })
    .prefault({}),
  safety: z
    .strictObject({
      /** Rules that create or change state run only when this is true. */
      allowMutations: z.boolean().default(true),
      /** The run stops sending (remaining rules become untestable) after this many requests. */
      requestBudget: z.number().int().min(1).default(5000),
      requestTimeoutMs: z.number().int().min(100).default(10_000),
      /** How long a check follows one event stream before giving up. */
      streamTimeoutMs: z.number().int().min(100).default(30_000),
      /** How long after a terminal event the stream may stay open before "closes after a terminal event" fails. */
      streamCloseGraceMs: z.number().int().min(50).default(2_000),
      /**
       * How long the approve rules follow a parked run's stream after an approve for what it did (resumed,
       * ended). The description bounds no time for "the resume is delivered": a run that shows nothing
       * within it is inconclusive, never failed. A run that resumes ends the watch at once.
       */
      approvalWatchMs: z.number().int().min(100).default(3_000),
      /** Rate-limit rules send a burst of requests until the first 429; they run only when this is true. */
      allowRateLimitBursts: z.boolean().default(false),
      /** The most requests one rate-limit burst may send. */
      rateLimitBurstMax: z.number().int().min(1).max(5000).default(300),
      /** Model-based rules (v8.missions.lifecycle.model, v1.runs.lifecycle.model): random sequences tried per rule. */
      modelRuns: z.number().int().min(1).max(1000).default(20),
      /** The most operations in one sequence. */
      modelCommands: z.number().int().min(1).max(200).default(16),
      /** How long one model-based rule may spend generating and shrinking sequences. */
      modelTimeMs: z.number().int().min(1000).default(30_000),
      /** The most requests one model-based rule may send (the run-wide requestBudget still applies). */
      modelRequests: z.number().int().min(10).default(800),
      /** Generated contract probes (`<surface>.contract.generated.*`): random-phase examples per endpoint body, after the deterministic phase. */
      generatedExamples: z.number().int().min(0).max(1000).default(4),
      /** The most requests the generated contract probes of one surface may send (the run-wide requestBudget still applies). */
      generatedRequests: z.number().int().min(0).default(1500),
      /**
       * How deep the probe catalogue goes (`<surface>.catalogue.*`): `quick` each operator once per
       * surface, `default` once per endpoint it fits, `deep` every variant on every field, then random
       * pairs of operators within the request budget.
       */
      probeDepth: z.enum(['quick', 'default', 'deep']).default('default'),
      /** Checks running at once. */
      concurrency: z.number().int().min(1).max(32).default(4),
    })
    .prefault({}),
  /** Extra headers per surface, a private CA and client certificate (mTLS), a forward proxy (network.ts). */
  network: networkSection.optional(),
  /** Read only by `apicert certify-receiver`: the team's own webhook receiver. */
  receiver: receiverSection.optional(),
});
export type Profile = z.infer<typeof profileSchema>;
export type ProfileInput = z.input<typeof profileSchema>;
