import type { Rule } from '../rule/index.ts';
import type { RunningFake } from '../fake/server.ts';
import { receiverMissing } from '../plan/plan.ts';
import type { Profile } from '../profile/schema.ts';
import { WebhookReceiver, type AnsweredDelivery } from '../webhooks/receiver.ts';

export interface RunReceiver {
  receiver?: WebhookReceiver;
  /** Why there is no receiver; delivery rules report it as untestable. */
  missing?: string;
}

/** Only rules that declare the receiver use it; other runs do not open a port. */
export function needsReceiver(rules: readonly Rule[]): boolean {
  return rules.some((r) => r.needs.receiver === true);
}

/**
 * Starts the receiver for one certification. Against the embedded fake it listens on loopback and
 * that exact origin is allowed by the fake's URL rules (and the profile's public receiver URL, when
 * it names one, forwards there); against a real target it listens where the
 * profile says and the deployment reaches it through the public HTTPS URL the user provides.
 */
export async function startRunReceiver(profile: Profile, fake: RunningFake | undefined, onDelivery?: (delivery: AnsweredDelivery) => void): Promise<RunReceiver> {
  if (fake) {
    // A public receiver URL in the embedded profile is served as a tunnel to this loopback receiver would serve it.
    const publicUrl = profile.fixtures.webhooks.publicReceiverUrl?.replace(/\/+$/, '');
    const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0, loopbackTrap: true, ...(publicUrl ? { publicUrl } : {}), ...(onDelivery ? { onDelivery } : {}) });
    fake.context.config.webhookAllowedOrigins.push(receiver.origin);
    if (publicUrl) {
      fake.context.config.webhookAllowedOrigins.push(new URL(publicUrl).origin);
      fake.context.config.webhookForwards[publicUrl] = receiver.origin;
    }
    return { receiver };
  }
  const { publicReceiverUrl, receiverListen } = profile.fixtures.webhooks;
  const missing = receiverMissing(profile, { embeddedFake: false });
  if (missing || !publicReceiverUrl || !receiverListen) return { missing };
  try {
    return { receiver: await WebhookReceiver.start({ host: receiverListen.host, port: receiverListen.port, publicUrl: publicReceiverUrl, ...(onDelivery ? { onDelivery } : {}) }) };
  } catch (error) {
    return { missing: `the webhook receiver could not listen on ${receiverListen.host}:${receiverListen.port} (${error instanceof Error ? error.message : String(error)}): pick a free port in fixtures.webhooks.receiverListen` };
  }
}
