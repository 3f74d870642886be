import { certificationSuite } from '../src/vitest/index.ts';

// No fault switched on: every rule of every surface must pass against the reference fake, with
// evidence. APICERT_PROFILE points the same suite at another target (e.g. `apicert fake` in
// another process, or staging): what passes against the fake must pass there too.
certificationSuite({ strict: true, seed: 20261121 });
