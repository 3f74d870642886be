/** The parts of --help a CI author looks for: what the exit codes mean and every variable apicert reads. */
import { ENV_VARS } from '../load/config.ts';
import { EXIT } from './exit.ts';

export const EXIT_CODES_HELP = `Exit codes:
  ${EXIT.pass}  every required rule passed (or did not apply), and some rule that gates judged something (required rules; SHOULD rules too with --strict)
  ${EXIT.fail}  a required rule failed, or was untestable (unless --allow-untestable)
  ${EXIT.usage}  usage or profile error; the message says what to fix
  ${EXIT.inconclusive}  the target (or container engine) did not answer, the image did not start, a required rule was inconclusive, no rule that gates judged anything, or a report file could not be written after the run
  ${EXIT.internal}  apicert itself failed (a bug: please report it with the message)
  ${EXIT.interrupted}  interrupted by SIGINT (Ctrl-C); what was judged so far was written
  ${EXIT.terminated}  terminated by SIGTERM; what was judged so far was written`;

/** What a subcommand's help says instead of repeating the variables. */
export const ENV_POINTER = 'Environment variables (credentials for --target, colour, CI, k6): run "apicert help env".';

/** The credentials `--target` reads (src/profile/load.ts profileFromEnv). */
export const TARGET_ENV = [
  { name: 'APICERT_V8_TOKEN', about: '/v8 token holding every scope' },
  { name: 'APICERT_V8_EXPIRED_TOKEN', about: 'an expired /v8 token (auth rules)' },
  { name: 'APICERT_V8_OTHER_PRINCIPAL_TOKEN', about: 'a /v8 token of another principal (ownership rules)' },
  { name: 'APICERT_V1_KEY', about: 'a /v1 service_sk_ key with runs:read and runs:write' },
  { name: 'APICERT_MCP_TOKEN', about: 'the token for /mcp' },
] as const;

export const ENV_HELP = `Environment variables:
${TARGET_ENV.map((v) => `  ${v.name.padEnd(34)}--target: ${v.about}`).join('\n')}
  \${NAME} in a profile              any variable a profile refers to; never printed
  HTTPS_PROXY, HTTP_PROXY           a profile's target: the forward proxy (unless the profile sets network.proxy); credentials in it are never printed
  NO_PROXY                          hosts reached without the proxy, comma separated (a profile's network.noProxy replaces it)
  APICERT_PROFILE                   certify, plan, load and apicert/vitest: the profile to certify when no --target/--profile is given (set but empty is an error; unset it for the embedded fake)
  NO_COLOR                          set (non-empty) to switch colour off, like --no-color; FORCE_COLOR=1 forces it on
  TERM                              "dumb": no colour and no redrawn progress line
  CI                                set: no redrawn progress line, one line per rule
  GITHUB_STEP_SUMMARY               set (GitHub Actions): certify appends its Markdown summary to that file (the other commands write summary.md in their run folder only)
  DOCKER_HOST                       --image: the container engine to use (testcontainers reads it)
  TESTCONTAINERS_RYUK_DISABLED      --image: "true" where the Ryuk reaper image cannot be pulled (apicert stops its container itself)
  TESTCONTAINERS_HOST_OVERRIDE      --image: the host name testcontainers uses for the engine ("localhost" with a local socket)
  APICERT_DEBUG                     set: an internal error (exit 4) prints its stack trace
  APICERT_LAUNCHER_PID              set by bin/apicert.js for the Node it starts where it stays resident beside it (no process.execve); "apicert fake" stops when that launcher is gone
  K6_BINARY                         apicert load: the k6 to run (default: k6 on the PATH)
apicert load and the k6 scripts (see "apicert load --help"):
${ENV_VARS.map((v) => `  ${v.name.padEnd(34)}${v.about}`).join('\n')}`;

export const README_SECTIONS = {
  profile: 'Certifying a real deployment',
  image: 'Certifying a container image',
  fake: 'The reference fake in another process',
} as const;
