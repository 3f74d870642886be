/**
 * vitest setup file. apicert's CLI and apicert/vitest honour APICERT_PROFILE, and most suites spawn
 * apicert expecting the embedded fake or a target of their own: the variable leaves every test
 * file's environment (and so every child's) and stays as APICERT_SUITE_PROFILE for the one suite
 * meant to follow it (clean-run.test.ts).
 */
const profile = process.env.APICERT_PROFILE;
delete process.env.APICERT_PROFILE;
if (profile !== undefined) process.env.APICERT_SUITE_PROFILE = profile;
