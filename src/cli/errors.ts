/**
 * Every error a user can cause ends as one line saying what to do and an exit code, never a stack
 * trace. Only an error nobody foresaw is a defect: exit 4, with the stack when APICERT_DEBUG is set.
 */
import { CommanderError } from 'commander';
import { ContainerEngineUnavailable, ContainerStartFailed, TestcontainersMissing } from '../container/image-target.ts';
import { HarError } from '../passive/har.ts';
import { ProfileError } from '../profile/load.ts';
import { ReportFolderError } from '../reports/run-folder.ts';
import { OutputNotWritable, ReportNotWritten } from '../reports/write.ts';
import { TargetUnreachable } from '../runner/certify.ts';
import { EmptySelection } from '../runner/run.ts';
import { FILE_ERRORS } from '../util/file-reason.ts';
import { EXIT } from './exit.ts';

/** A wrong or missing option the parser cannot see (a combination, a file that cannot be written). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface Reported {
  code: number;
  /** Printed after "apicert: "; undefined when commander has printed it already. */
  message?: string;
}

export function reportError(error: unknown, env: NodeJS.ProcessEnv = process.env): Reported {
  if (error instanceof CommanderError) return { code: error.exitCode === 0 ? EXIT.pass : EXIT.usage };
  if (error instanceof ProfileError || error instanceof UsageError || error instanceof ReportFolderError || error instanceof OutputNotWritable || error instanceof EmptySelection || error instanceof HarError || error instanceof TestcontainersMissing) return { code: EXIT.usage, message: error.message };
  if (error instanceof ReportNotWritten) {
    // After the run, not before it: requests were sent, so not exit 2, and no report holds what they showed.
    const why = FILE_ERRORS[error.reason] ? `${FILE_ERRORS[error.reason]} (${error.reason})` : error.reason;
    return { code: EXIT.inconclusive, message: `cannot write ${error.file}: ${why}; ${ReportNotWritten.outcome(error.savedJson)}${error.note ? `; ${error.note}` : ''}; free space or choose another --out, and run again` };
  }
  if (error instanceof TargetUnreachable || error instanceof ContainerEngineUnavailable || error instanceof ContainerStartFailed) return { code: EXIT.inconclusive, message: error.message };
  const errno = error as NodeJS.ErrnoException;
  if (errno && typeof errno.code === 'string' && FILE_ERRORS[errno.code]) {
    const net = errno as { address?: string; port?: number };
    const where = errno.path ?? (net.address ? `${net.address}${net.port ? `:${net.port}` : ''}` : '');
    // A listening port is the one thing here without a path: say which to change.
    const instead = errno.path === undefined && net.port !== undefined ? 'choose another port (--port, or 0 for a free one)' : 'choose another path';
    return { code: EXIT.usage, message: `${errno.syscall ?? 'operation'} ${where}: ${FILE_ERRORS[errno.code]} (${errno.code}); ${instead}` };
  }
  const text = error instanceof Error ? error.message : String(error);
  const stack = env.APICERT_DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : ' (set APICERT_DEBUG=1 for the stack trace)';
  return { code: EXIT.internal, message: `internal error, please report it: ${text}${stack}` };
}
