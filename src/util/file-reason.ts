/** An errno code a file or socket operation failed with, said in words: one wording for every message apicert prints. */
export const FILE_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EADDRINUSE: 'the address is already in use',
};

/** "ENOENT (no such file or folder)": an errno code, with what it means in words; undefined without one. */
export function fileReason(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  return FILE_ERRORS[code] ? `${code} (${FILE_ERRORS[code]})` : code;
}
