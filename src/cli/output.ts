/**
 * How the CLI talks to a person: colour only where it can be seen and is wanted, three levels of
 * detail, and one stream for human text so stdout can carry a report (`--out -`) untouched.
 */
import { randomBytes } from 'node:crypto';
import { styleText } from 'node:util';

export type Verbosity = 'quiet' | 'normal' | 'verbose';
type Style = Parameters<typeof styleText>[0];

export interface UiOptions {
  /** false after `--no-color`. */
  color?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** Human text goes to stderr when stdout carries a report. */
  stdoutIsReport?: boolean;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** NO_COLOR (https://no-color.org) and --no-color switch colour off; FORCE_COLOR switches it on for logs that render it. */
export function colorWanted(flag: boolean | undefined, stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

/**
 * Whatever redacts the run's secrets; set once a run knows them. A console line is apicert's own
 * words around target text already redacted where it entered (a reason, an exchange), so it is read
 * as own text: every secret that cannot be a word goes, and a token `pass` or `error` leaves the
 * verdicts, the gate line and the fixed sentences as written.
 */
interface OutputRedaction {
  outputText(input: string): string;
}
let outputRedaction: OutputRedaction | undefined;

/** From now on every line the CLI prints passes through `redactor` (the run's own). */
export function redactOutputWith(redactor: OutputRedaction): void {
  outputRedaction = redactor;
}

/** A line as it may be printed: with every secret of the run redacted. */
export function safeText(text: string): string {
  return outputRedaction ? outputRedaction.outputText(text) : text;
}

/**
 * C0 and C1 control characters and DEL, line feed and tab aside: a target's text (an SSE id, an
 * event name, a detail quoted in a reason) holding ESC sequences would move the cursor, erase lines
 * or retitle a terminal, and a CR lets a CI log viewer start a line (a workflow command) mid-line.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with every control character but line feed and tab made visible (`\x1b`, `\x9b`). */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * Stands for ESC in what `paint` returns until the line is written: every control a line holds is
 * made visible there, then this (which no target can know: it is never printed) turns back into
 * the ESC of apicert's own colours. Private-use characters only, so nothing in it looks like a key
 * to the redaction a line passes first.
 */
const PAINT_ESCAPE = String.fromCharCode(...Array.from(randomBytes(12), (b) => 0xe000 + b));

/** A line as the console gets it: secrets redacted, the target's control characters visible, apicert's colours kept. */
export function consoleText(text: string): string {
  return visibleControls(safeText(text)).replaceAll(PAINT_ESCAPE, '\x1b');
}

export class Ui {
  readonly out: NodeJS.WriteStream;
  readonly err: NodeJS.WriteStream;
  readonly color: boolean;
  readonly verbosity: Verbosity;
  /** A terminal that can redraw one status line. */
  readonly live: boolean;

  constructor(options: UiOptions = {}) {
    const env = options.env ?? process.env;
    this.err = options.stderr ?? process.stderr;
    this.out = options.stdoutIsReport ? this.err : (options.stdout ?? process.stdout);
    this.color = colorWanted(options.color, this.out, env);
    this.verbosity = options.verbose ? 'verbose' : options.quiet ? 'quiet' : 'normal';
    this.live = Boolean(this.out.isTTY) && env.TERM !== 'dumb' && env.CI === undefined;
  }

  paint(style: Style, text: string): string {
    return this.color ? styleText(style, text, { validateStream: false }).replaceAll('\x1b', PAINT_ESCAPE) : text;
  }

  /** Printed at every level, --quiet included (failures, the gate). */
  always(text: string): void {
    this.out.write(`${consoleText(text)}\n`);
  }

  /** Printed unless --quiet. */
  info(text: string): void {
    if (this.verbosity !== 'quiet') this.out.write(`${consoleText(text)}\n`);
  }

  /** Printed with --verbose only. */
  detail(text: string): void {
    if (this.verbosity === 'verbose') this.out.write(`${consoleText(text)}\n`);
  }

  /** Warnings and errors: stderr, whatever the level. */
  warn(text: string): void {
    const line = consoleText(text);
    this.err.write(`${this.color ? styleText('yellow', line, { validateStream: false }) : line}\n`);
  }

  /** Redraws the one status line of a terminal (`live`): no line feed, the previous status erased. */
  status(text: string): void {
    this.out.write(`\r\x1b[2K${consoleText(text)}`);
  }
}

/**
 * A reader that goes away (`apicert coverage | head -1`) is not an error of apicert: once the pipe
 * is closed, what is left to print is dropped and the command ends as it would have, without a
 * stack trace. A run still writes its report files and keeps its exit code.
 */
const guarded = new WeakSet<NodeJS.WriteStream>();

export function dropOutputOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    stream.write = ((_chunk: unknown, encoding?: unknown, callback?: unknown) => {
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
      return true;
    }) as typeof stream.write;
  });
}
