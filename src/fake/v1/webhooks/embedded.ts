import { taskScenarios } from '../../../../scenarios/v1/runs.ts';
import type { ProfileInput } from '../../../profile/schema.ts';
import type { EmbeddedContributor } from '../../embedded/types.ts';

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
      },
    },
  };
};
