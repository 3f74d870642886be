import type { EmbeddedContributor } from '../../embedded/types.ts';

/** Webhook fixtures for the embedded fake (issue: /v1 webhooks). */
export const webhooksEmbedded: EmbeddedContributor = () => ({});
