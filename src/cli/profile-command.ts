/** `apicert profile init`: a starting profile for a real deployment, each value to fill explained beside it. */
import { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PLACEHOLDER } from '../profile/load.ts';
import { profileTemplate, TEMPLATE_CREDENTIALS, tokenVariable } from '../profile/template.ts';
import { makeFolder } from '../util/folder.ts';
import { UsageError } from './errors.ts';
import { nonBlank } from './options.ts';

export function profileCommand(): Command {
  const profile = new Command('profile').description('Profiles for real deployments: "apicert profile init" writes a starting one.');
  profile
    .command('init')
    .description(`Write a starting profile: every credential and fixture a full certification needs, each explained; replace every ${PLACEHOLDER} (apicert refuses the file while one is left), then run "apicert plan --profile FILE".`)
    // As certify and plan say it: an unset variable behind --out "$FILE" is named, not tried as a path.
    .option('--out <file>', 'where to write it (never overwritten)', nonBlank('--out', 'a file name', 'to write apicert-profile.yaml'), 'apicert-profile.yaml')
    .action(async (opts: { out: string }) => {
      await makeFolder(dirname(opts.out));
      try {
        await writeFile(opts.out, profileTemplate(), { flag: 'wx' });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new UsageError(code === 'EEXIST' ? `${opts.out} exists: choose another --out, or delete it first` : `cannot write ${opts.out} (${code ?? String(error)}): choose a writable path with --out`);
      }
      console.log(`wrote ${opts.out}: replace every ${PLACEHOLDER} with this deployment's value (or delete the entry), export the tokens it reads:`);
      console.log(`  ${TEMPLATE_CREDENTIALS.map(([name]) => tokenVariable(name)).join(' ')}`);
      console.log(`then: npx apicert plan --profile ${opts.out}    (what would run, sending nothing)`);
    });
  return profile;
}
