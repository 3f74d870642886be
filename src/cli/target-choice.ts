/**
 * What a run certifies, decided once for every command that takes a target: the embedded fake only
 * when nothing names a target at all. An empty value given on purpose (an unset CI variable behind
 * `--profile "$PROFILE"`) is a mistake to stop on, never a quiet switch to the fake.
 */
import { UsageError } from './errors.ts';
import { emptyValue } from './options.ts';

export interface TargetFlags {
  target?: string;
  profile?: string;
  image?: string;
}

export interface TargetChoice {
  target?: string;
  profile?: string;
  image?: string;
  /** The profile came from APICERT_PROFILE, not --profile. */
  profileFromEnv: boolean;
  /** Nothing named a target: the embedded reference fake runs. */
  embedded: boolean;
}

/** The first console line of an embedded-fake run, so it is never taken for a run against a deployment. */
export const EMBEDDED_NOTICE = 'apicert: no --target, --profile, --image or APICERT_PROFILE given: certifying the built-in reference fake (give --profile FILE to certify a deployment)';

/** `fallback`: what the command does with nothing named ("certify", "load"), as its messages say it. */
export function chooseTarget(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env, fallback = 'certify'): TargetChoice {
  for (const name of ['target', 'profile', 'image'] as const) {
    const value = flags[name];
    if (value !== undefined && value.trim() === '') throw emptyValue(`--${name}`, 'a value', `to ${fallback} the built-in reference fake`);
  }
  const fromEnv = env.APICERT_PROFILE;
  let profile = flags.profile;
  let profileFromEnv = false;
  if (profile === undefined && flags.target === undefined && fromEnv !== undefined) {
    if (fromEnv.trim() === '') throw new UsageError(`APICERT_PROFILE is set but empty: name a profile file in it, or unset it (unset APICERT_PROFILE) to ${fallback} the built-in reference fake`);
    profile = fromEnv;
    profileFromEnv = true;
  }
  const embedded = flags.target === undefined && profile === undefined && flags.image === undefined;
  return { target: flags.target, profile, image: flags.image, profileFromEnv, embedded };
}
