import { InvalidArgumentError, type Command } from 'commander';
import { judgeClient } from '../client-judge/judge-client.ts';
import { CLIENT_RULES } from '../client-judge/rules.ts';
import { SCENARIO_NAMES, type ScenarioName } from '../client-judge/scenarios.ts';
import { addRunOptions, list, nonBlank, printRules, type RunCliOptions } from './options.ts';
import { checkReportRoot } from '../reports/run-folder.ts';
import { printResult, runInterruptibly } from './side-report.ts';
import { UsageError } from './errors.ts';
import { findProgram } from '../util/executable.ts';

/**
 * The client's program found as spawn will look for it (a path as given, else on PATH), before any
 * scenario starts: one that is not there is a usage error saying what to give, not spawn's ENOENT.
 */
async function checkClientCommand(program: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if ((await findProgram(program, env)) !== undefined) return;
  const where = program.includes('/') ? 'no executable file there' : 'no such command on PATH';
  throw new UsageError(`cannot start the client "${program}": ${where}: give the program after "--" as a command on PATH or a path to an executable, e.g. -- node ./client.js (or use --port N and run the client yourself)`);
}

function scenarios(value: string): ScenarioName[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError(`name at least one scenario: ${SCENARIO_NAMES.join(', ')}`);
  for (const s of out) if (!(SCENARIO_NAMES as readonly string[]).includes(s)) throw new InvalidArgumentError(`unknown scenario "${s}": use ${SCENARIO_NAMES.join(', ')}`);
  return out as ScenarioName[];
}

function positive(label: string, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > max) throw new InvalidArgumentError(`${label} is a number above 0 and at most ${max}`);
    return n;
  };
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('the port is an integer from 0 to 65535');
  return n;
}

interface ClientCliOptions extends RunCliOptions {
  port: number;
  scenario: ScenarioName[];
  timeScale: number;
  maxSeconds: number;
  quietSeconds?: number;
  writeEnv: string;
  showClientOutput?: boolean;
}

export function registerJudgeClientCommand(program: Command): void {
  const command = program
    .command('judge-client')
    .description(
      'Serve the reference fake with scripted adversity (one scenario at a time), record what your API client sends and judge it against the seed\'s client rules. With "-- <command>" the client is started once per scenario; without it, run your client against --port yourself.',
    )
    .argument('[command...]', 'the client to run once per scenario (after --); it gets APICERT_BASE_URL, APICERT_V1_KEY, APICERT_V8_TOKEN and APICERT_TIME_SCALE')
    .option('--port <n>', 'loopback port your client talks to (0 picks a free one)', port, 0)
    .option('--scenario <names>', `scenarios, comma separated (${SCENARIO_NAMES.join(', ')})`, scenarios, [...SCENARIO_NAMES])
    .option('--time-scale <s>', "multiplies the seed's delays (the 60 s retry hint); your client must apply the same APICERT_TIME_SCALE", positive('--time-scale', 1), 1)
    .option('--max-seconds <n>', 'bound on one scenario; a client still running is stopped, with every process it started', positive('--max-seconds', 3600), 120)
    .option('--quiet-seconds <n>', 'port form: a scenario ends this long after your client\'s last request (default: the scaled 60 s hint + 5 s)', positive('--quiet-seconds', 3600))
    .option('--write-env <file>', 'port form: where the URL and keys for your client are written (mode 0600)', nonBlank('--write-env', 'a file for the URL and keys', 'to write reports/client-env.sh'), 'reports/client-env.sh')
    .option('--show-client-output', "print the client's output (redacted) to stderr");
  // No client rule is ever untestable: a scenario the client never went through is inconclusive
  // (exit 3), which the flag leaves as it is. The shared option stays accepted, and says so.
  addRunOptions(command, 'reports/client', 'no client rule is ever untestable, so it changes nothing here: a scenario the client never went through leaves its rules inconclusive, exit 3')
    .action(async (command: string[], opts: ClientCliOptions) => {
      if (opts.listRules) return printRules(CLIENT_RULES);
      if (command.length > 0) await checkClientCommand(command[0]!);
      const quietMs = (opts.quietSeconds ?? 60 * opts.timeScale + 5) * 1000;
      await checkReportRoot(opts.out);
      await runInterruptibly((signal) => judgeClient({
        signal,
        onClientFailure: (text) => console.error(`apicert: ${text.replace(/\n/g, '\n  ')}`),
        scenarios: opts.scenario,
        timeScale: opts.timeScale,
        port: opts.port,
        command: command.length > 0 ? command : undefined,
        maxSecondsPerScenario: opts.maxSeconds,
        quietMs,
        envFile: opts.writeEnv,
        showClientOutput: opts.showClientOutput,
        patterns: opts.rules,
        seed: opts.seed,
        onScenario: (name, title, baseUrl) => {
          // In the port form the user runs the client: the prompt is printed even with --quiet.
          const prompt = command.length > 0 ? '' : `\n  run your client now against ${baseUrl} (source ${opts.writeEnv} for its URL and keys); the scenario ends ${quietMs / 1000} s after its last request`;
          if (!opts.quiet || prompt) console.log(`scenario ${name}: ${title}${prompt}`);
        },
        onResult: opts.quiet ? undefined : printResult,
      }), { out: opts.out, format: opts.format, allowUntestable: opts.allowUntestable, what: 'client' });
    });
}
