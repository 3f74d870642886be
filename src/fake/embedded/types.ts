import type { ProfileInput } from '../../profile/schema.ts';
import type { RunningFake } from '../server.ts';

export type FixturesInput = NonNullable<ProfileInput['fixtures']>;

/** What one surface adds to the embedded fake's profile: tokens issued by this fake, and fixtures. */
export interface EmbeddedContribution {
  credentials?: ProfileInput['credentials'];
  fixtures?: Partial<FixturesInput>;
}

export type EmbeddedContributor = (fake: RunningFake) => EmbeddedContribution;
