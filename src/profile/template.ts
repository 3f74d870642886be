/**
 * `apicert profile init`: a starting profile for a real deployment, every credential and fixture
 * explained where it is written. Each `FILL-IN` marks a value only the deployment's owner knows;
 * a profile that still holds one is refused (load.ts), so a half-filled file never certifies.
 * Tokens are `${VARIABLE}` references, never values: a profile is meant to be committed.
 * Filled in with the values `apicert fake` writes, it leaves no required rule untestable
 * (suites/harness/profile-init.test.ts holds it to that).
 */
import { PLACEHOLDER } from './load.ts';

const P = PLACEHOLDER;

/** The credentials a full certification needs, each with what it must hold; names are free, roles are found by what they hold. */
export const TEMPLATE_CREDENTIALS = [
  ['full', 'v8', 'every /v8 scope; the primary principal', 'all'],
  ['other-principal', 'v8', 'every /v8 scope, another principal: lookups of the first one\'s missions must answer 404', 'all'],
  ['expired', 'v8', 'an expired /v8 token of the primary principal (expired: true)', 'all'],
  ['v8-rate-probe', 'v8', 'missions:read and missions:write, a principal on a tier a bounded burst can exhaust (fixtures.v8.rateLimitCredential)', 'missions'],
  ['without-missions-write', 'v8', 'every /v8 scope but missions:write (the scope rule expects 403)', 'no-write'],
  ['without-missions-read', 'v8', 'every /v8 scope but missions:read', 'no-read'],
  ['v1-full', 'v1', 'a service_sk_ key with runs:read and runs:write', 'runs'],
  ['v1-read-only', 'v1', 'runs:read only', 'runs:read'],
  ['v1-write-only', 'v1', 'runs:write only (registering a webhook needs both)', 'runs:write'],
  ['v1-no-scopes', 'v1', 'a key holding no scope', 'none'],
  ['v1-other-principal', 'v1', 'runs:read and runs:write, another principal of the same tenant', 'runs'],
  ['v1-other-tenant', 'v1', 'runs:read and runs:write, another tenant: scoping rules', 'runs'],
  ['v1-expired', 'v1', 'an expired /v1 key', 'runs'],
  ['v1-rate-probe', 'v1', 'a key on a tier a bounded burst can exhaust (fixtures.v1.rateLimitCredential)', 'runs'],
  ['v1-limiter-down', 'v1', 'a key whose limiter is unavailable, so requests fail closed with 503 (fixtures.v1.limiterUnavailableCredential)', 'runs'],
  ['mcp', 'mcp', 'the token for /mcp', 'mcp'],
  ['mcp-expired', 'mcp', 'an expired token for /mcp', 'mcp'],
] as const;

const V8_ALL = '[missions:write, missions:read, memory:read, capabilities:read, traces:read, skills:read, context:read, world:read, coverage:read]';
const SCOPES: Record<string, string> = {
  all: V8_ALL,
  missions: '[missions:read, missions:write]',
  'no-write': '[missions:read, memory:read, capabilities:read, traces:read, skills:read, context:read, world:read, coverage:read]',
  'no-read': '[missions:write, memory:read, capabilities:read, traces:read, skills:read, context:read, world:read, coverage:read]',
  runs: '[runs:read, runs:write]',
  'runs:read': '[runs:read]',
  'runs:write': '[runs:write]',
  none: '[]',
};

/** The environment variable a template credential's token is read from. */
export function tokenVariable(name: string): string {
  return `APICERT_TOKEN_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Which rules need the rate-limit keys of the primary principal and tenant: only the idempotency retry
 * rules, which retry on v1-full with the key's idempotency key; the v1.errors rules take any principal.
 */
const SAME_PRINCIPAL: Readonly<Record<string, string>> = {
  'v1-rate-probe': 'v1.execute.idempotency.retry-after-429',
  'v1-limiter-down': 'v1.execute.idempotency.retry-after-503',
};

function credentialLines(): string {
  return TEMPLATE_CREDENTIALS.map(([name, surface, about, scopes]) => {
    const lines = [`  - name: ${name}                # ${about}`, `    token: \${${tokenVariable(name)}}`, `    surfaces: [${surface}]`];
    if (surface !== 'mcp') lines.push(`    scopes: ${SCOPES[scopes]}`);
    if (name.includes('expired')) lines.push('    expired: true');
    lines.push(`    principal: ${P}           # who the token acts for: the same value for the credentials of one principal`);
    const retry = SAME_PRINCIPAL[name];
    if (retry) lines.push(`    #   v1-full's principal and tenant for ${retry} (it retries on v1-full with the same idempotency key); any principal for the v1.errors rules`);
    if (surface === 'v1') lines.push(`    tenant: ${P}              # the key's tenant: the same for all but v1-other-tenant`);
    return lines.join('\n');
  }).join('\n');
}

export function profileTemplate(): string {
  return `# yaml-language-server: $schema=node_modules/apicert/dist/profile.schema.json
# An apicert profile, written by "apicert profile init". Replace every ${P} with this deployment's
# value (apicert refuses the file while one is left), or delete the entry: its rules are then
# reported untestable with what they miss ("apicert plan --profile FILE" lists them, sending nothing).
# Tokens are read from the environment (\${NAME}) and never printed.

target: ${P}                      # base URL of the deployment, e.g. https://gateway.staging.example.com

credentials:
${credentialLines()}

fixtures:
  v8:
    missions:                      # POST /v8/missions bodies ({ goalSpec, resourceBudget }) that make THIS deployment:
      succeeds: ${P}               #   reach "succeeded" within seconds, emitting at least one step event
      waits: ${P}                  #   reach "waiting" and stay there long enough to be signalled
      fails: ${P}                  #   reach "failed"
      cancellable: ${P}            #   run for several seconds, so it can be cancelled while running
      timeLimit: ${P}              #   exceed its resourceBudget.maximumElapsedMs before the goal is met
      overBudget: ${P}             #   need more steps than its resourceBudget.maximumSteps (time to spare): ends "failed"
    skillId: ${P}                  # a skill the primary principal may read
    # Optional (apicert has a default for each; uncomment to use the deployment's own):
    # staleEventCursor: "…"        # an event cursor known to be outside the replay window (default: one never issued)
    # traceId: "…"                 # a traceId of the primary principal (default: taken from a "succeeds" mission's steps)
    # capabilitySearch: { actionFamily: read, purpose: "…", targetType: document }   # a search body it answers
    memory:
      compartment: ${P}            # a compartment the primary principal's memory queries may name
      purpose: ${P}                # a purpose it is permitted to query memory with
      forbiddenPurpose: ${P}       # a purpose that exists but it may not use (expects 403)
      classes: ${P}                # entry classes to ask for, e.g. [note, document]
    goalCompartments: ${P}         # every compartment whose context goals the primary principal may see, e.g. [research]
    rateLimitCredential: v8-rate-probe   # the credential above whose per-principal limit a burst can reach
    rateLimitTiers:                # optional: declared per-principal limits; a burst past one with no 429 fails
      ${P}: { requests: ${P}, windowSeconds: ${P} }   # key: the rate-probe credential's principal
  v1:
    tasks:                         # POST /v1/execute task-mode bodies ({ mode: task, task: {...} }) whose run:
      completes: ${P}              #   finishes successfully within a few seconds
      fails: ${P}                  #   fails within a few seconds
      parks: ${P}                  #   parks awaiting approval until approved, rejected or cancelled
      long: ${P}                   #   stays in flight for several seconds, emitting events
    # turn: { … }                  # optional: a turn body it admits (requestId is set per request); default: the smallest valid one
    # terminalEvents: [run.completed, run.failed]   # optional: event kinds that end a run besides request.cancelled
    # cancelledWithinMs: 5000       # optional: your own bound for request.cancelled after an accepted cancel; without it a cancel never followed by one is inconclusive, never failed
    approval:                      # where a parked run shows the action_digest approve must carry (the seed does not show it)
      event: ${P}                  # the event kind announcing it, e.g. approval.required
      digestField: ${P}            # dot path of the digest in that event's data, e.g. action_digest
      approveDecision: approved    # the decision value that approves
    rateLimitCredential: v1-rate-probe           # the key above a burst can bring to 429
    rateLimitTiers:                # optional: declared tiers by credential name; 2N+1 requests in one window with no 429 fail
      v1-rate-probe: { requests: ${P}, windowSeconds: ${P} }
    limiterUnavailableCredential: v1-limiter-down
    # timestampFields: { run: [created_at], usage: [period.start] }   # optional: members your deployment types Timestamp (numeric offset required); none declared: only recorded
  webhooks:                        # deliveries need a receiver the deployment can reach:
    publicReceiverUrl: ${P}        # a public URL (a tunnel or ingress you run) forwarding to receiverListen
    receiverListen: { host: 127.0.0.1, port: ${P} }   # where apicert's receiver listens during the run
    runs:                          # task bodies whose runs end within seconds (as fixtures.v1.tasks)
      completes: ${P}
      fails: ${P}
    replay: { method: POST, path: ${P} }   # the replay operation the seed does not show, e.g. /v1/webhook-deliveries/{delivery_id}/replay
    deliveryTimeoutMs: 20000       # how long a check waits for a delivery or its retry
    deadLetterWaitMs: 15000        # how long the dead-letter observation watches failing deliveries
  mcp:
    # endpoint: /mcp               # optional: where the MCP endpoint is mounted, when not /mcp
    requiresSession: ${P}          # true: /mcp refuses requests without its Mcp-Session-Id (400); false: it serves them
    safeTool: { name: ${P}, arguments: ${P} }   # a tool without side effects, callable any number of times

safety:
  allowMutations: true             # false: every rule that creates missions, runs or webhooks is left out
  allowRateLimitBursts: true       # false: the rate-limit rules send no bursts and are untestable
  rateLimitBurstMax: 300           # the most requests one burst may send
  requestBudget: 50000             # the run stops sending after this many requests
  concurrency: 4                   # rules running at once
`;
}
