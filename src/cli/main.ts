import { Command } from 'commander';
import { FAULTS } from '../fake/faults/index.ts';
import { VARIANTS } from '../fake/variants/index.ts';
import { RULES } from '../registry.ts';
import { HARNESS_VERSION } from '../runner/certify.ts';
import { certifyCommand } from './certify-command.ts';
import { registerJudgeClientCommand } from './client.ts';
import { registerCoverage } from './coverage.ts';
import { dropOutputOnClosedPipe, safeText } from './output.ts';
import { reportError, UsageError } from './errors.ts';
import { fakeCommand } from './fake-command.ts';
import { ENV_HELP, EXIT_CODES_HELP } from './help.ts';
import { registerLoadCommand } from './load.ts';
import { patternList, printRules } from './options.ts';
import { surfaceList } from './parse.ts';
import { registerPlan } from './plan.ts';
import { profileCommand } from './profile-command.ts';
import { registerReceiverCommand } from './receiver.ts';
import { registerReportCommands } from './report-commands.ts';
import { registerTrafficCommands } from './traffic.ts';

export function buildProgram(): Command {
  const program = new Command('apicert')
    .description('Conformance and load-testing harness for the /v8 integration gateway, the /v1 execution fabric and /mcp.')
    .version(HARNESS_VERSION)
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\n${ENV_HELP}`)
    // "help env" is a topic besides the commands; ours replaces commander's help command to hold it.
    .helpCommand(false)
    // Usage errors exit 2 (commander's default is 1, which means "a rule failed" here).
    .exitOverride()
    .showHelpAfterError('(run "apicert --help" for the commands, exit codes and environment variables)');

  program.addCommand(certifyCommand());
  program.addCommand(fakeCommand());
  registerPlan(program, { surfaces: surfaceList, list: patternList });
  program.addCommand(profileCommand());
  registerCoverage(program);
  registerReportCommands(program);

  program
    .command('rules')
    .description('List every rule: id, level, spec sentence.')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => printRules(RULES, opts.json));

  program
    .command('variants')
    .description('List the legal alternatives the reference fake can take (docs/legal-variation.md has the table).')
    .action(() => {
      for (const v of VARIANTS) {
        console.log(`${v.id}\n    ${v.description}\n    "${v.spec.quote}" (${v.spec.document}, ${v.spec.section})`);
        if ('departsFrom' in v) console.log(`    does not follow the SHOULD of ${v.departsFrom.join(', ')} (a warning; the gate stays green)`);
      }
      console.log(`${VARIANTS.length} variants`);
    });

  program
    .command('faults')
    .description('List the faults the reference fake can switch on, each breaking one rule.')
    .action(() => {
      for (const f of FAULTS) console.log(`${f.id}\n    ${f.description}`);
      console.log(`${FAULTS.length} faults`);
    });

  program
    .command('help')
    .description('Show the help of a command, or "apicert help env" for the environment variables apicert reads.')
    .argument('[topic]', 'a command, or env')
    .action((topic: string | undefined) => {
      if (topic === 'env') return void console.log(ENV_HELP);
      const command = topic === undefined ? program : program.commands.find((c) => c.name() === topic);
      if (!command) throw new UsageError(`no command or topic "${topic}": use one of ${[...program.commands.map((c) => c.name()), 'env'].join(', ')}`);
      command.outputHelp();
    });

  registerLoadCommand(program);
  registerReceiverCommand(program);
  registerJudgeClientCommand(program);
  registerTrafficCommands(program);

  exitTwoOnUsageErrors(program.commands, 'apicert');
  return program;
}

/**
 * Subcommands parse their own options; each, at any depth ("profile init", "load merge"), must
 * exit 2 on a usage error like the program does. A command made apart (`new Command`) and added
 * later inherits nothing from the program, so every level is set here.
 */
function exitTwoOnUsageErrors(commands: readonly Command[], parent: string): void {
  for (const command of commands) {
    const name = `${parent} ${command.name()}`;
    command.exitOverride().showHelpAfterError(`(run "${name} --help" for its options)`);
    exitTwoOnUsageErrors(command.commands, name);
  }
}

export async function main(argv: string[]): Promise<void> {
  dropOutputOnClosedPipe(process.stdout);
  dropOutputOnClosedPipe(process.stderr);
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    const { code, message } = reportError(error);
    if (message) console.error(`apicert: ${safeText(message)}`);
    process.exitCode = code;
  }
}
