import { parseProfile } from '../profile/load.ts';
import type { Profile, ProfileInput } from '../profile/schema.ts';
import type { EmbeddedContributor, FixturesInput } from './embedded/types.ts';
import { mcpEmbedded } from './mcp/embedded.ts';
import type { RunningFake } from './server.ts';
import { v1Embedded } from './v1/embedded.ts';
import { webhooksEmbedded } from './v1/webhooks/embedded.ts';
import { v8Embedded } from './v8/embedded.ts';

const CONTRIBUTORS: EmbeddedContributor[] = [v8Embedded, v1Embedded, webhooksEmbedded, mcpEmbedded];

/** The profile for the embedded fake: every surface's tokens (issued by this instance) and fixtures. */
export function embeddedProfile(fake: RunningFake): Profile {
  const credentials: NonNullable<ProfileInput['credentials']> = [];
  const fixtures: Partial<FixturesInput> = {};
  for (const contribute of CONTRIBUTORS) {
    const part = contribute(fake);
    credentials.push(...(part.credentials ?? []));
    Object.assign(fixtures, part.fixtures);
  }
  return parseProfile(
    {
      target: fake.baseUrl,
      credentials,
      fixtures,
      safety: {
        allowMutations: true,
        allowRateLimitBursts: true,
        requestBudget: 50_000,
        requestTimeoutMs: 5_000,
        streamTimeoutMs: 15_000,
        streamCloseGraceMs: 1_000,
        concurrency: 6,
      },
    },
    'embedded fake profile',
  );
}
