/**
 * A prerequisite the profile (or the run) lacks, as a value: `untestable` is decided from it, never
 * from a message, and the message is written from it. Its `need` is one of the kinds a rule
 * declares in `Needs` (credential, fixture, receiver, bursts), the mutations switch, or a setting
 * or service a check finds missing only once it runs.
 */
export type Prerequisite =
  /** A credential role (src/profile/roles.ts, e.g. `v8:expired`) no credential of the profile fits. */
  | { need: 'credential'; role: string; remedy: string }
  /** A fixture path below `fixtures`: unset, or (`problem`) set to a value the check cannot use. */
  | { need: 'fixture'; path: string; problem?: string; remedy?: string }
  /** The harness's webhook receiver: not running, or no delivery reached it. */
  | { need: 'receiver'; remedy: string }
  /** `safety.allowRateLimitBursts`. */
  | { need: 'bursts' }
  /** `safety.allowMutations`. */
  | { need: 'mutations' }
  /** A setting of the profile or the environment (`safety.modelRequests`, `APICERT_WEBHOOK_SECRET`) too low or unset. */
  | { need: 'setting'; name: string; remedy: string }
  /** Data the target must hold for the rule to judge anything (a world certificate, a goal). */
  | { need: 'data'; what: string; remedy: string }
  /** A run-wide service the run does not provide (src/rule/context.ts `service`). */
  | { need: 'service'; name: string; remedy: string }
  /** A part of the traffic a recording did not keep (a body omitted, a stream aborted, a header stripped). */
  | { need: 'recording'; what: string };

/** What to add, in words: the reason an untestable verdict carries. */
export function describePrerequisite(p: Prerequisite): string {
  switch (p.need) {
    case 'credential':
      return `credential ${p.role}: ${p.remedy}`;
    case 'fixture':
      return `fixture fixtures.${p.path} ${p.problem ?? 'is not set'}${p.remedy ? `: ${p.remedy}` : ''}`;
    case 'receiver':
      return `webhook receiver: ${p.remedy}`;
    case 'bursts':
      return 'the rule sends bursts up to the rate limit: set safety.allowRateLimitBursts: true (and rateLimitBurstMax)';
    case 'mutations':
      return 'the rule creates or changes state and the profile sets safety.allowMutations: false';
    case 'setting':
      return `${p.name}: ${p.remedy}`;
    case 'data':
      return `the target has ${p.what}: ${p.remedy}`;
    case 'service':
      return `${p.name}: ${p.remedy}`;
    case 'recording':
      return `the recording lacks what the rule judges: ${p.what}`;
  }
}
