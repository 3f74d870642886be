import { taskScenarios } from '../../../../scenarios/v1/runs.ts';
import type { ProfileInput } from '../../../profile/schema.ts';
import type { EmbeddedContributor } from '../../embedded/types.ts';

/** A public receiver URL that nothing serves: under its fault the fake forwards it to the run's loopback receiver, as a tunnel would. */
export const PUBLIC_RECEIVER = 'https://receiver.example.net/apicert';

/**
 * Webhook keys for the embedded fake, in a tenant of their own so other /v1 rules' runs do not
 * fan out to the receiver: both scopes (registering needs both), and each scope alone.
 */
export const webhooksEmbedded: EmbeddedContributor = (fake) => {
  const credentials: NonNullable<ProfileInput['credentials']> = [];
  const key = (name: string, scopes: string[]) => {
    const token = fake.context.tokens.issue('service_sk_', { principal: 'webhooks-principal', tenant: 'tenant-webhooks', scopes, expired: false });
    credentials.push({ name, token, surfaces: ['v1'], scopes, principal: 'webhooks-principal', tenant: 'tenant-webhooks' });
  };
  key('webhooks-full', ['runs:read', 'runs:write']);
  key('webhooks-runs-read', ['runs:read']);
  key('webhooks-runs-write', ['runs:write']);
  return {
    credentials,
    fixtures: {
      webhooks: {
        runs: { completes: taskScenarios.completes.request, fails: taskScenarios.fails.request },
        replay: { method: 'POST', path: '/v1/webhook-deliveries/{delivery_id}/replay' },
        deliveryTimeoutMs: 8_000,
        deadLetterWaitMs: 6_000,
        // The fault's deployment was told of a public receiver, so nothing allows it loopback. The run registers its receiver
        // under that URL, which the fake forwards to the loopback receiver as a tunnel would (src/runner/receiver.ts).
        ...(fake.context.faults.has('v1.webhooks.url.private-network/loopback-accepted') ? { publicReceiverUrl: PUBLIC_RECEIVER } : {}),
      },
    },
  };
};
