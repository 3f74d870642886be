import { z } from 'zod';

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

const missionBody = z.looseObject({
  goalSpec: z.looseObject({ task: z.string() }),
  resourceBudget: z.looseObject({}),
});
export type MissionRequest = z.infer<typeof missionBody>;

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
  /** Base URL of the deployment, without a path below the API prefixes. */
  target: z.url({ protocol: /^https?$/ }),
  credentials: z.array(credentialSchema).default([]),
  fixtures: z
    .strictObject({
      v8: z
        .strictObject({
          missions: z
            .strictObject({
              /** A create body whose mission reaches `succeeded` and emits at least one step. */
              succeeds: missionBody.optional(),
              /** A create body whose mission reaches and stays in `waiting` long enough to signal it. */
              waits: missionBody.optional(),
              /** A create body whose mission reaches `failed`. */
              fails: missionBody.optional(),
              /** A create body whose mission runs long enough (seconds) to be cancelled while running. */
              cancellable: missionBody.optional(),
              /** A create body whose `maximumElapsedMs` elapses before the goal is met. */
              timeLimit: missionBody.optional(),
            })
            .default({}),
          /** An event cursor known to be outside the replay window; without it a never-issued cursor is used. */
          staleEventCursor: z.string().optional(),
        })
        .default({ missions: {} }),
    })
    .default({ v8: { missions: {} } }),
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
      /** Checks running at once. */
      concurrency: z.number().int().min(1).max(32).default(4),
    })
    .default({
      allowMutations: true,
      requestBudget: 5000,
      requestTimeoutMs: 10_000,
      streamTimeoutMs: 30_000,
      streamCloseGraceMs: 2_000,
      concurrency: 4,
    }),
});
export type Profile = z.infer<typeof profileSchema>;
export type ProfileInput = z.input<typeof profileSchema>;
