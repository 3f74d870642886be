import { certificationSuite } from '../src/vitest/index.ts';

// No fault switched on: every rule of every surface must pass against the reference fake, with
// evidence. APICERT_PROFILE points the same suite at another target (e.g. `apicert fake` in
// another process, or staging): what passes against the fake must pass there too. The setup file
// keeps it as APICERT_SUITE_PROFILE, away from the apicert processes other suites spawn.
certificationSuite({ strict: true, seed: 20261121, env: { ...process.env, APICERT_PROFILE: process.env.APICERT_SUITE_PROFILE } });
