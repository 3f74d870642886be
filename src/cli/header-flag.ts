/**
 * `--header [SURFACE:]NAME:VALUE`, the command line's way into the profile's `network.headers`
 * (every surface when none is named). Values are secrets: the option collects the raw text and the
 * action checks it, so no message (commander's included) ever repeats a value.
 */
import type { Command } from 'commander';
import { parseHeaderFlag, withHeaderFlags, type HeaderFlag, type Network } from '../profile/network.ts';
import { UsageError } from './errors.ts';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function addHeaderOption(command: Command, where: string): Command {
  return command.option(
    '--header <[surface:]name:value>',
    `a request header for ${where}, added to the profile's network.headers (repeatable; surface v8, v1 or mcp, none: every surface); the value is redacted like a token`,
    collect,
  );
}

/** The flags, checked by the profile's rules for headers; exit 2 naming the header, never its value. */
export function headerFlags(raw: readonly string[] | undefined): HeaderFlag[] {
  return (raw ?? []).map((text) => {
    const parsed = parseHeaderFlag(text);
    if ('error' in parsed) throw new UsageError(`--header: ${parsed.error}`);
    return parsed;
  });
}

/** The network settings with the command line's headers in them. */
export function networkWithHeaders(network: Network | undefined, raw: readonly string[] | undefined): Network | undefined {
  return withHeaderFlags(network, headerFlags(raw));
}
