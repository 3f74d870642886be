/** `apicert judge-traffic --har FILE` and `apicert proxy --upstream URL`: the passive run's two ways in. */
import { randomBytes } from 'node:crypto';
import { open, rm, stat } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { MAX_HAR_BYTES, readHar } from '../passive/har.ts';
import { RULES } from '../registry.ts';
import { loadProfileFile, parseProfile } from '../profile/load.ts';
import { profileOfFacts } from '../passive/profile-facts.ts';
import { judgeRecording, passiveRuleIds, recordingHiding, WEBHOOK_SECRET_VARIABLE, type PassiveJudgement } from '../passive/judge.ts';
import { KEPT_BYTES_LIMIT, runProxy } from '../passive/proxy.ts';
import type { SecretHiding } from '../passive/recorder.ts';
import { liveJudging } from './live-findings.ts';
import { droppedLine, gateWords, judgedLine, underPolicy, type Report } from '../reports/model.ts';
import { ACTIVE_ONLY } from '../passive/judging.ts';
import { keyedLabels } from '../passive/secrets.ts';
import { checkReportRoot, writeRunReports, writtenLine } from '../reports/run-folder.ts';
import { UsageError } from './errors.ts';
import { exitCodeFor } from './exit.ts';
import { addRunOptions, nonBlank, printRules, type RunCliOptions } from './options.ts';
import { consoleText, redactOutputWith } from './output.ts';
import { portOf, surfaceList } from './parse.ts';
import { durationOf, whileInterruptible } from './run-control.ts';
import { printResult } from './side-report.ts';
import { addHeaderOption, networkWithHeaders } from './header-flag.ts';
import { networkSecrets, type Network } from '../profile/network.ts';
import type { Profile } from '../profile/schema.ts';
import { API_SURFACES, pathOnly, type Surface } from '../rule/index.ts';
import type { TrafficExchange } from '../passive/exchange.ts';
import { onSurface } from '../traffic/read.ts';
import { mcpEndpointOf } from '../profile/mcp-endpoint.ts';
import { WEBHOOK_HEADERS } from '../webhooks/signature.ts';
import { Redactor, SHORT_SECRET } from '../redact/redactor.ts';
import { carriesUserinfo } from '../util/url.ts';
import { fileReason } from '../util/file-reason.ts';

/** The upstream's network settings: a profile's `network` section (its target is the upstream) and --header. */
async function upstreamNetwork(upstream: string, profile: string | undefined, header: string[] | undefined): Promise<Network | undefined> {
  const network = profile ? (await loadProfileFile(profile, process.env, { target: upstream })).network : undefined;
  return networkWithHeaders(network, header);
}

/**
 * `--har-out` is written at the stop: a path that cannot be written is said now, before any traffic
 * is forwarded, as `--out` and `--findings` are. Opened for appending, so a recording already there
 * is left as it is, and a file this check made is removed again.
 */
async function checkRecordingPath(file: string): Promise<void> {
  const existed = await stat(file).then(
    () => true,
    () => false,
  );
  try {
    await (await open(file, 'a', 0o600)).close();
    if (!existed) await rm(file, { force: true });
  } catch (error) {
    throw new UsageError(`--har-out ${file}: cannot write it (${fileReason((error as NodeJS.ErrnoException).code) ?? (error as Error).message}); give a file path in a writable folder`);
  }
}

/**
 * A recording's hiding with the secrets the proxy added upstream in it: each by its own marker where
 * it stands whole (once: a header of every surface is one value thrice), and in the redactor, which
 * hides its encoded forms and a short one as a whole token only, as the run's other secrets.
 */
function withHeaderSecrets(hiding: SecretHiding, secrets: ReadonlyArray<[label: string, value: string]>): SecretHiding {
  withNetworkSecrets(hiding.redactor, secrets);
  const known = new Set(hiding.secrets.map((s) => s.value));
  const whole = secrets.filter(([, value]) => value.length >= SHORT_SECRET && !known.has(value) && known.add(value)).map(([label, value]) => ({ value, label }));
  return whole.length === 0 ? hiding : { ...hiding, secrets: [...hiding.secrets, ...whole] };
}

/**
 * What certify says of its secrets before the run (one too short to hide but where it stands whole),
 * said of those the proxy knows before any traffic: the profile's tokens, what it adds upstream and
 * the webhook secret. The warnings name a secret by its label and length, never its value.
 */
function secretWarnings(profile: Profile | undefined, secrets: ReadonlyArray<[label: string, value: string]>, env: NodeJS.ProcessEnv): string[] {
  const redactor = new Redactor();
  for (const c of profile?.credentials ?? []) redactor.add(c.token, `token:${c.name}`);
  withNetworkSecrets(redactor, secrets);
  redactor.add(env[WEBHOOK_SECRET_VARIABLE] || undefined, 'env:webhook-secret');
  return redactor.warnings;
}

/** The secrets the proxy adds upstream (network.headers, --header, a proxy's password), hidden as `certify` hides them. */
function withNetworkSecrets(redactor: Redactor, secrets: ReadonlyArray<[label: string, value: string]>): Redactor {
  for (const [label, value] of secrets) redactor.add(value, label);
  return redactor;
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 4 * 1024 * 1024 * 1024) throw new InvalidArgumentError('give a whole number from 1 to 4294967296');
  return n;
}

function upstreamOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('give the deployment\'s base URL, e.g. https://api.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('the upstream is an http:// or https:// URL');
  return value;
}

async function finish(judged: PassiveJudgement, opts: RunCliOptions, what: string, held: ReadonlySet<Surface>): Promise<void> {
  const { redactor } = judged;
  const report = underPolicy(judged.report, Boolean(opts.allowUntestable));
  // Like every command that writes a report: its own run folder, `latest` pointing at it.
  const written = await writeRunReports(report, opts.out, opts.format, {}, redactor);
  // The counts certify's gate line gives: an inconclusive gate shows the rules that made it, and SHOULD verdicts are not lost.
  const { required: req, should } = report.summary;
  const judgedRules = report.rules.filter((r) => r.verdict === 'pass' || r.verdict === 'fail');
  console.log(
    consoleText(
      `\n${what} (mode: passive): gate ${gateWords(report).words} - ${judgedLine(report.summary)}; required ${req.pass} pass, ${req.fail} fail, ${req.untestable > 0 ? `${req.untestable} untestable, ` : ''}${req.inconclusive > 0 ? `${req.inconclusive} inconclusive, ` : ''}${req['not-applicable']} n/a; should ${should.pass} pass, ${should.fail} fail${report.summary.strict ? '' : ' (warnings)'}; ${report.run.requests} recorded exchanges, ${judgedRules.reduce((n, r) => n + (r.exchanges ?? 0), 0)} judgements of an exchange by a rule`,
    ),
  );
  // Said once, beside the gate it qualifies: the verdicts judged only what the record still held.
  const dropped = droppedLine(report.run);
  if (dropped) console.log(consoleText(`gate ${gateWords(report).words} ${dropped}`));
  const active = activeOnlyLine(report, held);
  if (active) console.log(consoleText(`gate ${gateWords(report).words} ${active}`));
  console.log(writtenLine(written, opts.out));
  process.exitCode = exitCodeFor(report.summary, Boolean(opts.allowUntestable));
}

/**
 * The rules a recording cannot judge at all, said beside the gate: a pass of judge-traffic over a
 * certify recording is no pass of the rules only an active run judges (a delivery to the receiver,
 * a dropped connection), whatever certify said of them. Only those of the surfaces the traffic
 * holds exchanges of (`held`): a recording of /v1 traffic passed no /v8 rule to begin with.
 */
function activeOnlyLine(report: Report, held: ReadonlySet<Surface>): string | undefined {
  const all = report.rules.filter((r) => r.verdict === 'not-applicable' && r.level !== 'observation' && r.reason?.startsWith(ACTIVE_ONLY));
  if (all.length === 0) return undefined;
  const surfaces = API_SURFACES.filter((s) => held.has(s));
  const ids = all.filter((r) => held.has(r.surface)).map((r) => r.id);
  if (ids.length === 0) return `covers what a recording shows: the ${all.length} rule(s) that need an active probe are of none of this traffic's surfaces${surfaces.length > 0 ? ` (${surfaces.join(', ')})` : ''}`;
  return `covers what a recording shows: ${ids.length} rule(s) need an active probe and were not judged (run "apicert certify"): ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? `, +${ids.length - 5} more` : ''} (those of this traffic's surfaces: ${surfaces.join(', ')})`;
}

/**
 * The API surfaces the traffic holds exchanges of: by their operations, the MCP endpoint where the
 * profile mounts it, and a webhook delivery (its signature header) as /v1's.
 */
function surfacesOf(exchanges: readonly TrafficExchange[], profile: Profile | undefined): Set<Surface> {
  const endpoint = profile ? mcpEndpointOf(profile) : undefined;
  const held = new Set<Surface>();
  for (const ex of exchanges) {
    for (const s of API_SURFACES) if (!held.has(s) && onSurface(ex, s)) held.add(s);
    if (endpoint !== undefined && pathOnly(ex) === endpoint) held.add('mcp');
    if (ex.requestHeaders[WEBHOOK_HEADERS.signature] !== undefined) held.add('v1');
    if (held.size === API_SURFACES.length) break;
  }
  return held;
}

const printJudged = (quiet?: boolean) => (quiet ? undefined : (r: Parameters<typeof printResult>[0]) => r.verdict !== 'not-applicable' && printResult(r));

/** What makes a rule untestable in traffic, for --allow-untestable's help. */
const UNTESTABLE_IN_TRAFFIC = 'a fact that neither the traffic nor the profile gives: which credential holds which scopes, a fixture, the webhook signing secret';

export function registerTrafficCommands(program: Command): void {
  const judge = program
    .command('judge-traffic')
    .description(
      `Judge recorded traffic (HAR 1.2 from a browser, mitmproxy or "certify --har-out") by every rule that needs no probe; the others are not-applicable. Sends nothing. Webhook deliveries recorded at a receiver are verified with the signing secret in ${WEBHOOK_SECRET_VARIABLE}.`,
    )
    .option('--har <file>', 'the HAR file to judge', nonBlank('--har', 'the HAR file to judge'))
    .option('--body-limit <bytes>', 'judge at most this many bytes of each body', count, 1024 * 1024)
    .option('--max-har-bytes <bytes>', `refuse a HAR file larger than this, or a .har.gz that unpacks to more (reading one takes 5 to 12 times its size in memory)`, count, MAX_HAR_BYTES)
    .option('--profile <file>', 'a target profile (YAML or JSON) giving the facts traffic cannot show: which credential holds which scopes, principal, tenant and expiry, and fixtures; a recording made by "certify --har-out", or by "proxy --har-out" with a profile, carries its facts (never its tokens), used when this is not given; without either the rules that need them are untestable', nonBlank('--profile', 'a target profile file (YAML or JSON)', 'to judge with the facts the recording carries'))
    // A recording of "certify --surface v1" holds no /v8 traffic: its /v8 rules would be not-applicable, and this says the run judged /v1 only.
    .option('--surface <list>', 'judge only the rules of these surfaces, comma separated (v8, v1, mcp), as certify --surface selects them', surfaceList);
  addRunOptions(judge, 'reports/passive', UNTESTABLE_IN_TRAFFIC)
    .action(async (opts: RunCliOptions & { har?: string; bodyLimit: number; maxHarBytes: number; profile?: string; surface?: Surface[] }) => {
      if (opts.listRules) return printRules(RULES.filter((r) => passiveRuleIds().includes(r.id) && (!opts.surface || opts.surface.includes(r.surface))));
      if (!opts.har) throw new UsageError('give the recording to judge: --har FILE (a HAR 1.2 file)');
      await checkReportRoot(opts.out);
      const given = opts.profile ? await loadProfileFile(opts.profile) : undefined;
      const recording = await readHar(opts.har, opts.bodyLimit, { maxBytes: opts.maxHarBytes });
      if (recording.skipped > 0 && !opts.quiet) console.log(`${recording.skipped} HAR entries are not requests apicert can read and were skipped`);
      const recorded = given ? undefined : profileOfFacts(recording.facts, opts.har);
      if (recorded && !opts.quiet) console.log(`the profile's facts (which credential holds which scopes, principal, tenant and expiry; fixtures) are the recording's own, as apicert wrote them; --profile FILE replaces them`);
      const profile = given ?? recorded;
      const judged = await judgeRecording(recording.exchanges, { patterns: opts.rules, ...(opts.surface ? { surfaces: opts.surface } : {}), ...(profile ? { profile } : {}), onRedactor: redactOutputWith, onResult: printJudged(opts.quiet) });
      await finish(judged, opts, opts.har, surfacesOf(recording.exchanges, profile));
    });

  const proxy = program
    .command('proxy')
    .description('A reverse proxy on loopback in front of --upstream: forwards every request and answer unchanged (event streams as they arrive), judges the traffic by every rule that needs no probe, and writes the report when stopped (SIGINT, SIGTERM or --duration).')
    .requiredOption('--upstream <url>', 'the deployment to forward to, e.g. https://api.example.com', upstreamOf)
    .option('--port <n>', 'loopback port to listen on (0 picks a free one)', portOf, 0)
    .option('--duration <duration>', 'stop after this long (e.g. 90s, 20m, 1h)', durationOf)
    .option('--body-limit <bytes>', 'keep at most this many bytes of each body for judging (the traffic itself is never cut)', count, 256 * 1024)
    .option('--max-exchanges <n>', 'judge at most the newest N exchanges (older ones are dropped from the record; forwarding goes on)', count, 10_000)
    .option('--max-kept-bytes <bytes>', 'bytes of bodies kept at once across all exchanges, those in flight included (the earliest ended exchanges are dropped beyond it; a body in flight is kept as a prefix)', count, KEPT_BYTES_LIMIT)
    .option('--har-out <file>', 'also write what was recorded as HAR 1.2, as certify --har-out writes its own: each credential the traffic carried (and each signing secret a webhook creation answered) replaced by a labelled marker, with the --profile\'s facts (never its tokens) for judge-traffic', nonBlank('--har-out', 'the file to record into, e.g. proxy.har', 'to record nothing'))
    .option('--har-secrets', 'with --har-out: keep the traffic\'s secrets in the recording (the file is made readable by you only)')
    .option('--findings <file>', 'also write each failing judgement, as the exchange that decides it completes, as one JSON line to this file (tail it from a CI or a dashboard; the report at the stop is the verdict: docs/recordings.md says what live judging leaves to it)', nonBlank('--findings', 'the file for the findings, one JSON line each', 'to write none'))
    .option('--profile <file>', 'a target profile (YAML or JSON): the facts traffic cannot show (which credential holds which scopes, principal, tenant and expiry, and fixtures; without it the rules that need them are untestable), and its network section (CA, client certificate, proxy, headers per surface) for the upstream', nonBlank('--profile', 'a target profile file (YAML or JSON)', "to judge without a profile's facts"));
  addHeaderOption(proxy, 'the upstream (never recorded)');
  addRunOptions(proxy, 'reports/passive', UNTESTABLE_IN_TRAFFIC)
    .action(async (opts: RunCliOptions & { upstream: string; port: number; duration?: number; bodyLimit: number; maxExchanges: number; maxKeptBytes: number; harOut?: string; harSecrets?: boolean; profile?: string; findings?: string; header?: string[] }) => {
      if (opts.harSecrets && !opts.harOut) throw new UsageError('--har-secrets applies only with --har-out FILE');
      // Not echoed: reports would show them wherever they name the upstream.
      if (carriesUserinfo(opts.upstream)) throw new UsageError("--upstream carries credentials (user:password@host): give the deployment's URL without them, and its headers with --header or the profile's network.headers");
      // certify's check of a target, before listening: the report at the stop names the upstream as its target (a query may hold a key).
      parseProfile({ target: opts.upstream, credentials: [] }, '--upstream');
      const network = await upstreamNetwork(opts.upstream, opts.profile, opts.header);
      // The record never holds them (they are added upstream), so nothing learns them from it: an upstream echoing one would show it.
      const secrets = networkSecrets(network, process.env);
      await checkReportRoot(opts.out);
      if (opts.harOut) await checkRecordingPath(opts.harOut);
      const profile = opts.profile ? await loadProfileFile(opts.profile) : undefined;
      for (const warning of secretWarnings(profile, secrets, process.env)) console.error(consoleText(`apicert: warning: ${warning}`));
      // One key per run names each learned secret alike in live findings and the report (keyedLabels); never written anywhere.
      const labelKey = randomBytes(32).toString('hex');
      const labels = keyedLabels(labelKey);
      const live = await liveJudging(opts, profile, labelKey, secrets);
      const limits = `--max-exchanges ${opts.maxExchanges}, --max-kept-bytes ${opts.maxKeptBytes}`;
      // The signal that stops the proxy is its ordinary end: the exit code stays the gate's. The handlers hold until the
      // report is written, so a signal repeated while it is judged does not kill it first (a second one later quits at once).
      await whileInterruptible(async (stop) => {
        let reported = false;
        let harFailed = false;
        const judged = await runProxy({
          stop,
          upstream: opts.upstream,
          port: opts.port,
          durationMs: opts.duration,
          bodyLimit: opts.bodyLimit,
          maxExchanges: opts.maxExchanges,
          maxKeptBytes: opts.maxKeptBytes,
          harOut: opts.harOut,
          harHiding: (exchanges) => (opts.harSecrets ? undefined : withHeaderSecrets(recordingHiding(exchanges, profile, process.env, labels), secrets)),
          // As certify's --har-out: a warning naming the file, the report (written first) standing.
          onHarFailed: (error) => {
            harFailed = true;
            console.error(consoleText(`apicert: warning: the recording ${opts.harOut} could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})${reported ? '; the report is written' : ''}`));
          },
          ...(network ? { network } : {}),
          ...(profile ? { profile } : {}),
          onListening: (url) => console.log(`apicert proxy: ${url} -> ${new URL(opts.upstream).origin}; stop with Ctrl-C${opts.duration ? ` or after ${Math.round(opts.duration / 1000)} s` : ''}`),
          onExchange: (rec, index) => live.add(rec, index),
          judge: async (exchanges, startedAt, droppedCount) => {
            const dropped = { exchanges: droppedCount, limits };
            // Live judging ends once the record is known, so what it did not judge is not said to be judged in a report that dropped it.
            await live.stop(dropped);
            const onRedactor = (redactor: Redactor) => redactOutputWith(withNetworkSecrets(redactor, secrets));
            const result = await judgeRecording(exchanges, { patterns: opts.rules, ...(profile ? { profile } : {}), startedAt, source: opts.upstream, onRedactor, onResult: printJudged(opts.quiet), labels, dropped });
            // The report before the recording: a HAR that cannot be written costs the HAR only.
            await finish(result, opts, `proxy for ${new URL(opts.upstream).origin}`, surfacesOf(exchanges, profile));
            reported = true;
            return result;
          },
        });
        if (opts.harOut && !harFailed && !opts.quiet) console.log(`recording: ${opts.harOut} (${judged.report.run.requests} exchanges${judged.report.run.dropped ? `, ${judged.report.run.dropped.exchanges} more dropped from the record` : ''}, HAR 1.2, readable by you only${opts.harSecrets ? ', secrets kept' : ', the traffic\'s secrets replaced by labelled markers'})`);
      }, 'stopping the proxy, judging what it recorded and writing the report');
    });
}
