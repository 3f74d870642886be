import type { FakeContext } from '../../context.ts';
import type { Route } from '../../http.ts';

/** /v1 webhooks: registration, deliveries listing, replay (issue: /v1 webhooks). */
export function webhookRoutes(_fake: FakeContext): Route[] {
  return [];
}
