/** Streamable HTTP header names (lower-cased, as node and undici report them). */
export const SESSION_HEADER = 'mcp-session-id';
/** Added by revision 2025-06-18; a 2025-03-26 server may ignore it. */
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';

/** "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)." */
export const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** What a client sends: "listing both `application/json` and `text/event-stream`". */
export const CLIENT_ACCEPT = 'application/json, text/event-stream';
