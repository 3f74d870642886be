import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { expandEnv, inlineSecretsIn, inlineSecretsWarning, isLoopbackUrl, parseProfileText, ProfileError } from '../profile/load.ts';
import { receiverSection, type ReceiverSection } from '../profile/receiver.ts';
import { certifyReceiver, receiverUrl, shownUrl } from '../receiver-cert/certify-receiver.ts';
import { receiverRules } from '../receiver-cert/rules.ts';
import { checkReportRoot } from '../reports/run-folder.ts';
import { printResult, runInterruptibly } from './side-report.ts';
import { addRunOptions, list, nonBlank, printRules, type RunCliOptions } from './options.ts';
import { fileReason } from '../util/file-reason.ts';

/** The `receiver:` section of a profile file; the rest of the profile is not needed here. */
async function receiverFromProfile(path: string): Promise<ReceiverSection> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    // The reason alone: Node's message repeats the path.
    throw new ProfileError(`cannot read profile ${path}: ${fileReason((error as NodeJS.ErrnoException).code) ?? (error as Error).message}: give a profile file with a receiver: section, or use --url`);
  }
  // A syntax error is said by its first line: the parser's snippet may show a secret written inline.
  const raw = parseProfileText(text, path);
  const section = (raw as { receiver?: unknown } | null)?.receiver;
  if (section === undefined) throw new ProfileError(`${path} has no receiver: section (url, secretEnv, allowHosts): add one or use --url`);
  // ${ENV} references, as in the rest of a profile: a header's value is a secret kept out of the file.
  const parsed = parseSection(expandEnv(section, process.env, path), `${path} receiver:`);
  const inline = inlineSecretsIn(raw).filter((field) => field.startsWith('receiver.'));
  if (inline.length > 0 && !isLoopbackUrl(parsed.url)) console.error(`apicert: warning: ${inlineSecretsWarning(path, inline)}`);
  if (!parsed.tls) return parsed;
  // Like network.tls: paths relative to the profile's folder.
  const at = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(dirname(path), p));
  return { ...parsed, tls: Object.fromEntries(Object.entries(parsed.tls).map(([k, v]) => [k, at(v)])) };
}

function parseSection(section: unknown, where: string): ReceiverSection {
  const parsed = receiverSection.safeParse(section);
  if (!parsed.success) throw new ProfileError(`${where} ${parsed.error.issues.map((i) => `${i.path.join('.') || '(section)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** The variable read when none is named: the one name a message may always show. */
const DEFAULT_SECRET_ENV = 'APICERT_WEBHOOK_SECRET';

interface ReceiverCliOptions extends RunCliOptions {
  url?: string;
  profile?: string;
  secretEnv?: string;
  allowHost?: string[];
}

export function registerReceiverCommand(program: Command): void {
  const command = program
    .command('certify-receiver')
    .description("Send signed /v1 webhook deliveries to your receiver and judge its answers against the seed's receiver rules.")
    .option('--url <url>', 'where your receiver takes deliveries (loopback, or a host named with --allow-host)', nonBlank('--url', "your receiver's full address, e.g. http://127.0.0.1:8080/webhooks", 'and give --profile'))
    .option('--profile <file>', 'a profile whose receiver: section names url, secretEnv and allowHosts, and headers and tls (ca, cert, key) for a receiver behind a gateway, a private CA or mutual TLS', nonBlank('--profile', 'a profile file with a receiver: section', 'and give --url'))
    .option('--secret-env <name>', "environment variable holding the endpoint's signing secret (never pass the secret itself)", nonBlank('--secret-env', 'the name of the variable holding the signing secret', `for the profile's receiver.secretEnv, or ${DEFAULT_SECRET_ENV}`))
    .option('--allow-host <hosts>', 'hosts besides loopback that deliveries may go to, comma separated', list);
  // Exit 0 needs a required rule that passed (cli/exit.ts); every receiver rule signs, so without the secret none passes.
  addRunOptions(command, 'reports/receiver', 'only when at least one required rule passed: without a signing secret every rule is untestable and none passes, so that run still exits 1')
    .action(async (opts: ReceiverCliOptions) => {
      if (opts.listRules) return printRules(receiverRules);
      if (Boolean(opts.url) === Boolean(opts.profile)) throw new ProfileError('give --url or --profile (with a receiver: section), one of them');
      if (opts.url) {
        // Not echoed whole: a receiver's URL may carry its key in the query.
        const given = URL.parse(opts.url);
        if (!given || !/^https?:$/.test(given.protocol)) throw new ProfileError(`--url ${given ? `${shownUrl(given)} ` : ''}is not an http or https URL: give your receiver's full address, e.g. http://127.0.0.1:8080/webhooks`);
      }
      const section = opts.profile ? await receiverFromProfile(opts.profile) : parseSection({ url: opts.url }, '--url');
      const allowHosts = [...section.allowHosts, ...(opts.allowHost ?? [])];
      // A host apicert may not send to is a usage error said first, before anything is made on disk.
      receiverUrl(section.url, allowHosts);
      const secretEnv = opts.secretEnv ?? section.secretEnv;
      // Never echoed, well-formed or not: what was given in place of a name may well be the secret
      // itself (whsec_... is a well-formed name). Only the default's name is known to be a name.
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) throw new ProfileError("--secret-env takes the name of an environment variable (letters, digits and _), never the secret itself (the value given is not shown): export the signing secret in a variable and name it, e.g. --secret-env WEBHOOK_SECRET");
      const secret = process.env[secretEnv];
      // What the console and the rules' reasons call the variable: a name nobody exported is not shown.
      const shownEnv = secret || secretEnv === DEFAULT_SECRET_ENV ? secretEnv : `the variable ${opts.secretEnv !== undefined ? '--secret-env' : "the profile's receiver.secretEnv"} names (not shown: it may be the secret itself)`;
      // Unset: the run goes on, every rule untestable (gate UNTESTABLE, exit 1, --allow-untestable or not).
      if (!secret) console.error(`apicert: ${shownEnv} is not set or empty: every rule that signs a delivery will be untestable (export the endpoint's signing secret in a variable, and name the variable with --secret-env or the profile's receiver.secretEnv)`);
      await checkReportRoot(opts.out);
      await runInterruptibly((signal) => certifyReceiver({
        signal,
        url: section.url,
        secret,
        secretEnv: shownEnv,
        allowHosts,
        requestTimeoutMs: section.requestTimeoutMs,
        network: { ...(section.headers ? { headers: section.headers } : {}), ...(section.tls ? { tls: section.tls } : {}) },
        patterns: opts.rules,
        seed: opts.seed,
        onResult: opts.quiet ? undefined : printResult,
        onWarning: (warning) => console.error(`apicert: warning: ${warning}`),
      }), { out: opts.out, format: opts.format, allowUntestable: opts.allowUntestable, what: 'receiver' });
    });
}
