/**
 * A path or value as it must be typed in a POSIX shell, for the commands our messages suggest: left bare, a
 * corpus folder with a space ("on call runbooks") made the suggested `npx sandscope calibrate --corpus …` two
 * arguments when pasted. Plain paths stay as they are, so the common message reads as before.
 */
export function shellArg(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
