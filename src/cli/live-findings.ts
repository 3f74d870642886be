/** `apicert proxy`'s live findings: a console line per failing judgement, and the `--findings FILE` JSON-lines stream. */
import { createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { LiveJudge, findingLine } from '../passive/live.ts';
import { WEBHOOK_SECRET_VARIABLE } from '../passive/judge.ts';
import type { Profile } from '../profile/schema.ts';
import { RULES } from '../registry.ts';
import { selectRules } from '../runner/run.ts';
import { UsageError } from './errors.ts';

export interface LiveFindings {
  judge: LiveJudge;
  /** Judges what is still pending and closes the findings file. */
  stop: () => Promise<void>;
}

export async function liveJudging(opts: { rules?: string[]; quiet?: boolean; findings?: string }, profile: Profile | undefined): Promise<LiveFindings> {
  let stream: WriteStream | undefined;
  if (opts.findings) {
    // Opened now, so a wrong path is a usage error before the proxy listens, not a lost stream later.
    try {
      await (await open(opts.findings, 'w', 0o600)).close();
    } catch (error) {
      throw new UsageError(`--findings ${opts.findings}: cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a file path in a writable folder`);
    }
    stream = createWriteStream(opts.findings, { flags: 'a', mode: 0o600 });
  }
  const webhookSecret = process.env[WEBHOOK_SECRET_VARIABLE] || undefined;
  const judge = new LiveJudge({
    rules: selectRules(RULES, { patterns: opts.rules }),
    ...(profile ? { profile } : {}),
    ...(webhookSecret ? { webhookSecret } : {}),
    webhookSecretVariable: WEBHOOK_SECRET_VARIABLE,
    onFinding: (finding) => {
      if (!opts.quiet) console.log(findingLine(finding));
      stream?.write(`${JSON.stringify(finding)}\n`);
    },
  });
  return {
    judge,
    stop: async () => {
      judge.flush();
      if (stream) await new Promise<void>((resolve) => stream.end(resolve));
    },
  };
}
