/**
 * HTTP/1.1 messages parsed by Node's own llhttp binding: the parser node:http itself reads every
 * request and answer with, reached through `_http_common`, which Node has exported since its first
 * versions (as `HTTPParser`) and still does in 22 and 24. The proxy forwards at the speed of this
 * parser instead of node:http's and undici's objects around it: a head, body pieces and an end are
 * all it needs to forward a message, and llhttp already decides the framing (Content-Length,
 * chunked, close-delimited, no body) and refuses what RFC 9112 forbids (both lengths, bad tokens).
 */
import { createRequire } from 'node:module';

interface Binding {
  new (): NativeParser;
  REQUEST: number;
  RESPONSE: number;
  kOnHeaders: number;
  kOnHeadersComplete: number;
  kOnBody: number;
  kOnMessageComplete: number;
  kLenientNone: number;
}

interface NativeParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | ParseError;
  finish(): ParseError | undefined;
  close(): void;
  [callback: number]: unknown;
}

/** llhttp's refusal: its code (HPE_...) and how far it read. */
export interface ParseError extends Error {
  code: string;
  reason?: string;
  bytesParsed: number;
}

const { HTTPParser, methods } = createRequire(import.meta.url)('_http_common') as { HTTPParser: Binding; methods: string[] };

/** A message's start line and header lines, as received. */
export interface Head {
  /** A request's method; undefined in an answer. */
  method: string | undefined;
  /** A request's target, as sent. */
  url: string;
  /** An answer's status and reason phrase; 0 and '' in a request. */
  status: number;
  reason: string;
  /** Names and values in turn, in the order and case received (repeated names stay repeated). */
  raw: string[];
  /** HTTP/1.0 or 1.1, as "1.0" or "1.1". */
  version: string;
  /** Whether the connection stays open after this message (HTTP/1.1 without "close", or 1.0 with "keep-alive"). */
  keepAlive: boolean;
  /** The request asks to switch protocols (Upgrade, or CONNECT). */
  upgrade: boolean;
}

export interface MessageEvents {
  /** A head arrived; returns true when the message has no body whatever its headers say (an answer to HEAD). */
  head(head: Head): boolean;
  /** A piece of the body, framing removed; a view of the received chunk, valid to keep. */
  body(piece: Buffer): void;
  end(): void;
}

/** One connection's reader: requests (`'request'`) or answers (`'response'`), message after message. */
export class MessageReader {
  private readonly parser: NativeParser;
  /** Header lines and target read so far when a head spans several chunks (llhttp hands them over in parts). */
  private partial: string[] = [];
  private partialUrl = '';
  private closed = false;
  /** A head arrived and its message has not ended. */
  private inMessage = false;

  constructor(kind: 'request' | 'response', events: MessageEvents) {
    const parser = new HTTPParser();
    parser.initialize(kind === 'request' ? HTTPParser.REQUEST : HTTPParser.RESPONSE, {}, 0, HTTPParser.kLenientNone);
    parser[HTTPParser.kOnHeaders] = (raw: string[], url: string) => {
      this.inMessage = true;
      for (const item of raw) this.partial.push(item);
      this.partialUrl += url;
    };
    parser[HTTPParser.kOnHeadersComplete] = (major: number, minor: number, raw: string[] | undefined, method: number | undefined, url: string | undefined, status: number | undefined, reason: string | undefined, upgrade: boolean, keepAlive: boolean) => {
      let lines = raw;
      if (lines === undefined) {
        lines = this.partial;
        this.partial = [];
      }
      let target = url;
      if (target === undefined) {
        target = this.partialUrl;
        this.partialUrl = '';
      }
      this.inMessage = true;
      const noBody = events.head({ method: method === undefined ? undefined : methods[method], url: target, status: status ?? 0, reason: reason ?? '', raw: lines, version: `${major}.${minor}`, keepAlive, upgrade });
      // 1: llhttp reads no body for this message and goes on to the next.
      return noBody ? 1 : 0;
    };
    parser[HTTPParser.kOnBody] = (piece: Buffer) => events.body(piece);
    parser[HTTPParser.kOnMessageComplete] = () => {
      // A chunked message's trailer fields come through kOnHeaders too, just before this: they end
      // with their message (not forwarded, not recorded), or they would open the next message's head.
      this.partial = [];
      this.partialUrl = '';
      this.inMessage = false;
      events.end();
    };
    this.parser = parser;
  }

  /** Reads a chunk; a ParseError when the bytes are not HTTP/1.1 (nothing after them is read). Stops after a request that asks to upgrade. */
  read(chunk: Buffer): ParseError | undefined {
    const result = this.parser.execute(chunk);
    return typeof result === 'number' ? undefined : result;
  }

  /**
   * No message is under way: the last one ended and no byte of another has been read since (llhttp
   * passes over blank lines between messages). Asked once a read returned; a byte of a next message's
   * start line or head that no callback reported yet is seen by llhttp's end-of-input test, which
   * changes nothing while no body is being read (it would end a close-delimited one).
   */
  between(): boolean {
    return !this.closed && !this.inMessage && this.parser.finish() === undefined;
  }

  /** The connection ended: a close-delimited answer ends here; a message cut short is a ParseError. */
  finish(): ParseError | undefined {
    return this.parser.finish();
  }

  /** Frees the parser; idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.parser.close();
  }
}
