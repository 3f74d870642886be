import { Command } from 'commander';
import { RULES } from '../registry.ts';
import { FAULTS } from '../fake/faults/index.ts';
import { HARNESS_VERSION } from '../runner/certify.ts';
import { certifyCommand } from './certify-command.ts';
import { reportError } from './errors.ts';
import { fakeCommand } from './fake-command.ts';
import { ENV_HELP, EXIT_CODES_HELP } from './help.ts';
import { list, surfaceList } from './parse.ts';
import { registerPlan } from './plan.ts';

export function buildProgram(): Command {
  const program = new Command('apicert')
    .description('Conformance and load-testing harness for the /v8 integration gateway, the /v1 execution fabric and /mcp.')
    .version(HARNESS_VERSION)
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\n${ENV_HELP}`)
    // Usage errors exit 2 (commander's default is 1, which means "a rule failed" here).
    .exitOverride()
    .showHelpAfterError('(run "apicert --help" for the commands, exit codes and environment variables)');

  program.addCommand(certifyCommand());
  program.addCommand(fakeCommand());
  registerPlan(program, { surfaces: surfaceList, list });

  program
    .command('rules')
    .description('List every rule: id, level, spec sentence.')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      if (opts.json) {
        console.log(JSON.stringify(RULES.map(({ check: _check, ...rule }) => rule), null, 2));
        return;
      }
      for (const r of RULES) console.log(`${r.id}  [${r.level}, ${r.destructive}]\n    ${r.title}\n    "${r.spec.quote}" (${r.spec.document}, ${r.spec.section})\n`);
      console.log(`${RULES.length} rules`);
    });

  program
    .command('faults')
    .description('List the faults the reference fake can switch on, each breaking one rule.')
    .action(() => {
      for (const f of FAULTS) console.log(`${f.id}\n    ${f.description}`);
      console.log(`${FAULTS.length} faults`);
    });

  // Subcommands parse their own options; each must exit 2 on a usage error like the program does.
  for (const command of program.commands) command.exitOverride().showHelpAfterError(`(run "apicert ${command.name()} --help" for its options)`);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    const { code, message } = reportError(error);
    if (message) console.error(`apicert: ${message}`);
    process.exitCode = code;
  }
}
