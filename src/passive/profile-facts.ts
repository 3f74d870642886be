/**
 * What a profile says that traffic cannot show: which credential holds which scopes, principal,
 * tenant and expiry, and the fixtures; never a token, a safety setting or the network section (a
 * WAF token, a client key). `certify --har-out` writes them into its recording, in the HAR custom
 * field `log._apicertProfile` (HAR 1.2 lets a writer add fields whose names start with `_`), beside
 * the markers that stand for the credentials' tokens. `judge-traffic` then judges that recording
 * with the facts the run had, with no profile file: a run of the built-in fake leaves none behind,
 * and its tokens die with it. `--profile FILE` takes their place.
 */
import { z } from 'zod';
import { parseProfile, ProfileError } from '../profile/load.ts';
import { credentialSchema, profileSchema, type Profile } from '../profile/schema.ts';
import { marker } from '../redact/redactor.ts';

export const PROFILE_FACTS_FIELD = '_apicertProfile';

const factsSchema = z.strictObject({
  target: profileSchema.shape.target,
  credentials: z.array(credentialSchema.omit({ token: true })),
  fixtures: profileSchema.shape.fixtures,
});

export type ProfileFacts = z.input<typeof factsSchema>;

export function factsOfProfile(profile: Profile): ProfileFacts {
  return { target: profile.target, credentials: profile.credentials.map(({ token: _token, ...facts }) => facts), fixtures: profile.fixtures };
}

/**
 * The profile a recording's facts describe, each credential's token the marker the recording holds
 * in its place (the rules tell callers apart by it, and never read a token out of a marker); undefined
 * when the recording has none. Facts that are not a profile's throw a message naming the way out.
 */
export function profileOfFacts(raw: unknown, file: string): Profile | undefined {
  if (raw === undefined) return undefined;
  const parsed = factsSchema.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') ?? '';
    throw new ProfileError(`${file}: its log.${PROFILE_FACTS_FIELD} (the profile's facts certify --har-out wrote) is not valid${where ? ` at ${where}` : ''}: give the profile with --profile FILE, or remove that field`);
  }
  const { target, credentials, fixtures } = parsed.data;
  return parseProfile({ target, credentials: credentials.map((c) => ({ ...c, token: marker(`token:${c.name}`) })), fixtures }, `${file} (log.${PROFILE_FACTS_FIELD})`);
}
