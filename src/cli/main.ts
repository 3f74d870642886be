import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RULES } from '../registry.ts';
import type { Surface } from '../rule/index.ts';
import { FAULTS, isFaultId, type FaultId } from '../fake/faults/index.ts';
import { conflictsOf, isVariantId, VARIANTS, type VariantId } from '../fake/variants/index.ts';
import { embeddedProfile } from '../fake/embedded-profile.ts';
import { startFake } from '../fake/server.ts';
import { loadProfileFile, ProfileError, profileFromEnv } from '../profile/load.ts';
import type { Redactor } from '../redact/redactor.ts';
import { checkWritable, OutputNotWritable, REPORT_FORMATS, writeReports, type ReportFormat } from '../reports/write.ts';
import { certify, DEFAULT_DEADLINE_MS, HARNESS_VERSION, TargetUnreachable } from '../runner/certify.ts';
import { EmptySelection } from '../runner/run.ts';
import { judgedLine } from '../reports/model.ts';
import { exitCodeFor, EXIT } from './exit.ts';
import { invocationOf, loadBaselineFor, loadSigningKey, registerReportCommands, writeSignature } from './report-commands.ts';
import { registerCoverage } from './coverage.ts';
import { registerLoadCommand } from './load.ts';
import { formats, list, printRules, seedOf, VERDICT_MARK } from './options.ts';
import { registerJudgeClientCommand } from './client.ts';
import { registerReceiverCommand } from './receiver.ts';
import { registerPlan } from './plan.ts';
import { durationOf, portOf, whileInterruptible } from './run-control.ts';

/** Set once a run has secrets: every line printed after that passes through it. */
let output: Redactor | undefined;
const say = (line: string) => console.log(output ? output.text(line) : line);
const complain = (line: string) => console.error(output ? output.text(line) : line);

const SURFACES: Surface[] = ['v8', 'v1', 'mcp'];

function patterns(value: string): string[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError('no rule pattern given: name rule ids or globs, e.g. "v8.missions.*" (see "apicert rules")');
  return out;
}

function surfaces(value: string): Surface[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError(`no surface given: use one or more of ${SURFACES.join(', ')}`);
  for (const s of out) if (!SURFACES.includes(s as Surface)) throw new InvalidArgumentError(`unknown surface "${s}": use ${SURFACES.join(', ')}`);
  return out as Surface[];
}

function faults(value: string): FaultId[] {
  const out = list(value);
  for (const f of out) if (!isFaultId(f)) throw new InvalidArgumentError(`unknown fault "${f}": run "apicert faults" for the list`);
  return out as FaultId[];
}

function variants(value: string): VariantId[] {
  const out = list(value);
  if (out.length === 0) throw new InvalidArgumentError('no variant given: run "apicert variants" for the list');
  for (const v of out) if (!isVariantId(v)) throw new InvalidArgumentError(`unknown variant "${v}": run "apicert variants" for the list`);
  const conflict = conflictsOf(out as VariantId[]);
  if (conflict) throw new InvalidArgumentError(conflict);
  return out as VariantId[];
}

export function buildProgram(): Command {
  const program = new Command('apicert')
    .description('Conformance and load-testing harness for the /v8 integration gateway, the /v1 execution fabric and /mcp.')
    .version(HARNESS_VERSION)
    // Usage errors exit 2 (commander's default is 1, which means "a rule failed" here).
    .exitOverride()
    .showHelpAfterError();

  program
    .command('certify')
    .description('Run every selected rule against a target and write a readiness report. Without --target or --profile, certifies the built-in reference fake.')
    .option('--target <url>', 'base URL of the deployment; credentials come from APICERT_V8_TOKEN (and APICERT_V8_EXPIRED_TOKEN, APICERT_V8_OTHER_PRINCIPAL_TOKEN)')
    .option('--profile <file>', 'target profile (YAML or JSON): base URL, credentials by role, fixtures, safety limits')
    .option('--surface <list>', `surfaces to certify, comma separated (${SURFACES.join(', ')})`, surfaces)
    .option('--rules <globs>', 'rule ids to run, comma separated, * as wildcard (e.g. "v8.missions.events.*"); each must select a rule', patterns)
    .option('--seed <n>', 'seed for property-based rules (printed in every report)', seedOf)
    .option('--out <dir>', 'directory for the reports', 'reports/latest')
    .option('--format <list>', `report formats, comma separated (${REPORT_FORMATS.join(', ')})`, formats, [...REPORT_FORMATS])
    .addOption(new Option('--faults <ids>', 'embedded fake only: switch on these faults (see "apicert faults")').argParser(faults))
    .addOption(new Option('--variant <ids>', 'embedded fake only: take these legal alternatives where the seeds or MCP leave a choice open (see "apicert variants")').argParser(variants))
    .option('--allow-untestable', 'exit 0 even when required rules are untestable (missing fixtures or credentials), as long as at least one required rule passed')
    .option('--strict', 'SHOULD rules gate too (by default a failed SHOULD is a warning)')
    .option('--deadline <duration>', 'the whole run\'s deadline (e.g. 90s, 20m, 1h); rules not finished by then are inconclusive and the report is written', durationOf, DEFAULT_DEADLINE_MS)
    .option('--sign <key>', 'sign report.json with this Ed25519 private key (from "apicert keygen"): writes report.json.sig')
    .option('--baseline <file>', 'YAML list of known failures { rule, reason, expires? }: listed failures do not gate, listed rules that pass fail the run')
    .option('--quiet', 'print only the summary')
    .action(async (opts: { target?: string; profile?: string; surface?: Surface[]; rules?: string[]; seed?: number; out: string; format: ReportFormat[]; faults?: FaultId[]; variant?: VariantId[]; allowUntestable?: boolean; strict?: boolean; sign?: string; baseline?: string; quiet?: boolean; deadline: number }) => {
      if (opts.target && opts.profile) throw new ProfileError('give --target or --profile, not both (a profile names its own target)');
      if (opts.faults && (opts.target || opts.profile)) throw new ProfileError('--faults only applies to the embedded fake; drop --target/--profile to use it');
      if (opts.variant && (opts.target || opts.profile)) throw new ProfileError('--variant only applies to the embedded fake; drop --target/--profile to use it');
      await checkWritable(opts.out);
      const profile = opts.profile ? await loadProfileFile(opts.profile) : opts.target ? profileFromEnv(opts.target) : undefined;
      const signingKey = opts.sign ? await loadSigningKey(opts.sign) : undefined;
      const baseline = opts.baseline ? await loadBaselineFor(opts.baseline) : undefined;
      // The handlers stay on while the reports are written, so a signal never cuts a report in half.
      const { value, signal } = await whileInterruptible(async (stop) => {
        const run = await certify({
          profile,
          surfaces: opts.surface,
          patterns: opts.rules,
          seed: opts.seed,
          faults: opts.faults,
          variants: opts.variant,
          strict: Boolean(opts.strict),
          deadlineMs: opts.deadline,
          signal: stop,
          invocation: invocationOf(opts),
          allowUntestable: Boolean(opts.allowUntestable),
          baseline,
          onStart: (redactor) => (output = redactor),
          onWarning: (warning) => complain(`apicert: warning: ${warning}`),
          onResult: opts.quiet ? undefined : (r) => say(`${(r.rule.level === 'observation' ? `${r.verdict} (obs)` : VERDICT_MARK[r.verdict === 'fail' && r.rule.level === 'should' && !opts.strict ? 'warn' : r.verdict]!).padEnd(12)} ${r.rule.id}${r.reason && r.verdict !== 'pass' ? `: ${r.reason.split('\n')[0]}` : ''}`),
        });
        const formatsWritten: ReportFormat[] = signingKey && !opts.format.includes('json') ? ['json', ...opts.format] : opts.format;
        const written = await writeReports(run.report, opts.out, formatsWritten, run.redactor);
        // Signed as written: the redacted report.json, read back.
        if (signingKey) written.push(await writeSignature(join(opts.out, 'report.json'), signingKey));
        return { run, written };
      });
      const { report, firstProbeFailure } = value.run;
      const written = value.written;
      if (firstProbeFailure) complain(`apicert: ${firstProbeFailure}; every rule is inconclusive`);
      if (report.run.stopped && !firstProbeFailure) complain(`apicert: the run stopped early: ${report.run.stopped}`);
      const { required: req, should } = report.summary;
      say(
        `\n${report.target.baseUrl} (${report.target.kind}): gate ${report.summary.gate.toUpperCase()}${report.summary.strict ? ' (strict)' : ''} - ${judgedLine(report.summary)}; required ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} n/a; should ${should.pass} pass, ${should.fail} fail${report.summary.strict ? '' : ' (warnings)'}; ${report.observations.length} observations; ${report.run.requests} requests in ${report.run.durationMs} ms; seed ${report.run.seed}`,
      );
      if (report.summary.expectedFailures.length) say(`expected failures (baseline): ${report.summary.expectedFailures.join(', ')}`);
      if (report.summary.staleBaseline.length) say(`STALE baseline entries (the rule passes now; remove them): ${report.summary.staleBaseline.join(', ')}`);
      if (!report.summary.strict && report.summary.warnings.length > 0) say(`warnings (SHOULD rules that failed; --strict makes them gate): ${report.summary.warnings.join(', ')}`);
      say(`reports: ${written.join(', ')}`);
      if (signal) process.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
      else if (firstProbeFailure) process.exitCode = EXIT.inconclusive;
      else process.exitCode = exitCodeFor(report.summary, Boolean(opts.allowUntestable));
    });

  program
    .command('fake')
    .description('Serve the reference fake on loopback until interrupted, and write a profile for it (its tokens live only as long as this process).')
    .option('--port <n>', 'port to listen on (0 picks a free one)', portOf, 0)
    .option('--faults <ids>', 'switch on these faults (see "apicert faults")', faults)
    .option('--variant <ids>', 'take these legal alternatives where the seeds or MCP leave a choice open (see "apicert variants")', variants)
    .option('--profile-out <file>', 'where to write the profile, readable by you only', 'reports/fake-profile.json')
    .action(async (opts: { port: number; faults?: FaultId[]; variant?: VariantId[]; profileOut: string }) => {
      const fake = await startFake({ port: opts.port, faults: opts.faults ?? [], variants: opts.variant ?? [] }).catch((error: unknown) => {
        const code = (error as { code?: string }).code;
        if (code === 'EADDRINUSE' || code === 'EACCES') throw new ProfileError(`cannot listen on 127.0.0.1:${opts.port} (${code}): choose another --port, or 0 for a free one`);
        throw error;
      });
      const profile = embeddedProfile(fake);
      await mkdir(dirname(opts.profileOut), { recursive: true });
      // The tokens are the fake's own, but a token is never printed: it goes to a private file.
      await writeFile(opts.profileOut, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
      console.log(`apicert fake listening on ${fake.baseUrl}${opts.faults?.length ? ` with faults ${opts.faults.join(', ')}` : ''}${opts.variant?.length ? ` with variants ${opts.variant.join(', ')}` : ''}`);
      console.log(`profile with ${profile.credentials.length} credentials written to ${opts.profileOut}; certify it from another shell with:`);
      console.log(`  npx apicert certify --profile ${opts.profileOut}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await fake.close();
    });

  registerReportCommands(program);
  registerPlan(program, { surfaces, list });
  registerCoverage(program);

  program
    .command('rules')
    .description('List every rule: id, level, spec sentence.')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => printRules(RULES, opts.json));

  program
    .command('variants')
    .description('List the legal alternatives the reference fake can take (docs/legal-variation.md has the table).')
    .action(() => {
      for (const v of VARIANTS) console.log(`${v.id}\n    ${v.description}\n    "${v.spec.quote}" (${v.spec.document}, ${v.spec.section})`);
      console.log(`${VARIANTS.length} variants`);
    });

  program
    .command('faults')
    .description('List the faults the reference fake can switch on, each breaking one rule.')
    .action(() => {
      for (const f of FAULTS) console.log(`${f.id}\n    ${f.description}`);
      console.log(`${FAULTS.length} faults`);
    });

  registerLoadCommand(program);
  registerReceiverCommand(program);
  registerJudgeClientCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other commander error is a usage error it has already printed.
      process.exitCode = error.exitCode === 0 ? EXIT.pass : EXIT.usage;
    } else if (error instanceof ProfileError || error instanceof EmptySelection || error instanceof OutputNotWritable) {
      complain(`apicert: ${error.message}`);
      process.exitCode = EXIT.usage;
    } else if (error instanceof TargetUnreachable) {
      complain(`apicert: ${error.message}`);
      process.exitCode = EXIT.inconclusive;
    } else {
      // A defect in apicert: one redacted line, never a stack trace with target bytes in it.
      complain(`apicert: internal error (please report it): ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      process.exitCode = EXIT.internal;
    }
  }
}
